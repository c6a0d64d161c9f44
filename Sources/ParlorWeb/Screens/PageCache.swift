import ByteOutput
import Foundation
import ParlorDomain
import ParlorEvents
import Synchronization

/// Chat pages rendered earlier, served again while nothing they show has changed: the way a signed-in
/// page costs a lookup instead of a read, fifty cells and a render.
///
/// A page is kept per (viewer, open chat, the viewer's today), with the number of the newest change it
/// was read after (``ChangeCounters``) and the chats its list shows. It is served while no change past that
/// number touched the viewer, one of those chats, or everyone, and the viewer's day has not turned (the
/// labels "14:05" and "Yesterday" move at midnight). What differs between two requests for the same page,
/// the session's CSRF token and the composer's fresh token, is rendered as stand-ins and put in when the
/// page is served, so a kept page is byte for byte what a fresh render with the same tokens gives
/// (`PageCacheEquivalenceTests`). The cache holds at most `byteLimit` bytes and drops the pages used
/// longest ago past that.
public final class PageCache: Sendable {
    struct Key: Hashable, Sendable {
        let viewer: UserID
        let chat: ChatID?
        /// The start of the viewer's today.
        let today: Date
    }

    /// The per-request tokens of a page.
    struct Tokens: Sendable {
        let csrf: String
        let composer: String
    }

    /// What is rendered in place of the tokens: random for each cache, in the alphabet of real tokens (never
    /// escaped), long enough that no message can contain them by chance, and unknown to anyone who writes one.
    let standIns: Tokens
    private let changes: ChangeCounters
    private let byteLimit: Int
    private let state = Mutex(State())
    /// Counted apart from `state`, so a page served takes no second turn at its lock.
    private let served = Atomic(0)

    private struct State {
        var pages: [Key: Entry] = [:]
        var byteCount = 0
        var uses: UInt64 = 0
        var rendered = 0
    }

    private struct Entry {
        let page: KeptPage
        var lastUse: UInt64
    }

    /// A cache of at most `byteLimit` bytes whose pages stay current while `changes` says nothing they show
    /// changed; its stand-in tokens are random.
    public convenience init(changes: ChangeCounters, byteLimit: Int) {
        self.init(changes: changes, byteLimit: byteLimit, standInPrefix: Sodium.randomToken(bytes: 24))
    }

    init(changes: ChangeCounters, byteLimit: Int, standInPrefix: String) {
        self.changes = changes
        self.byteLimit = byteLimit
        standIns = Tokens(csrf: standInPrefix + "C", composer: standInPrefix + "M")
    }

    var isEnabled: Bool { byteLimit > 0 }

    /// The page for `key` filled with `tokens`, when one is kept and still current.
    func page(_ key: Key, tokens: Tokens) -> OutputBuffer? {
        guard isEnabled else { return nil }
        let kept: KeptPage? = state.withLock { state in
            guard state.pages[key] != nil else { return nil }
            state.uses += 1
            state.pages[key]!.lastUse = state.uses
            return state.pages[key]!.page
        }
        guard let kept, changes.unchanged(since: kept.mark, viewer: key.viewer, chats: kept.chats) else { return nil }
        served.add(1, ordering: .relaxed)
        return kept.filled(with: tokens)
    }

    /// Keeps `rendered` (rendered with ``standIns``, from what was read after `mark`) and answers it filled
    /// with `tokens`.
    func keep(_ rendered: OutputBuffer, for key: Key, mark: UInt64, chats: [ChatID], tokens: Tokens) -> OutputBuffer {
        let page = KeptPage(rendered, standIns: standIns, mark: mark, chats: chats)
        if isEnabled, page.byteCount <= byteLimit / 4 {
            state.withLock { state in
                state.uses += 1
                state.rendered += 1
                if let old = state.pages.updateValue(Entry(page: page, lastUse: state.uses), forKey: key) {
                    state.byteCount -= old.page.byteCount
                }
                state.byteCount += page.byteCount
                if state.byteCount > byteLimit { Self.evict(&state, downTo: byteLimit / 4 * 3) }
            }
        }
        return page.filled(with: tokens)
    }

    /// Drops the pages used longest ago until at most `target` bytes are kept.
    private static func evict(_ state: inout State, downTo target: Int) {
        for (key, entry) in state.pages.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.byteCount > target else { return }
            state.pages[key] = nil
            state.byteCount -= entry.page.byteCount
        }
    }

    /// What the cache holds and has done since start.
    public var counts: PageCacheCounts {
        let served = served.load(ordering: .relaxed)
        return state.withLock { PageCacheCounts(pages: $0.pages.count, bytes: $0.byteCount, served: served, rendered: $0.rendered) }
    }
}

/// Pages served from ``PageCache`` and pages rendered and kept, since start; what it holds now.
public struct PageCacheCounts: Sendable, Equatable {
    public let pages: Int
    public let bytes: Int
    public let served: Int
    public let rendered: Int
}

/// A rendered page with holes where its tokens go.
struct KeptPage: Sendable {
    enum Hole: Sendable { case csrf, composer }

    let mark: UInt64
    let chats: [ChatID]
    /// The page without its stand-ins.
    private let bytes: [UInt8]
    /// Where in `bytes` a token goes, in order.
    private let holes: [(offset: Int, hole: Hole)]

    var byteCount: Int { bytes.count + holes.count * 16 + chats.count * 8 }

    init(_ rendered: OutputBuffer, standIns: PageCache.Tokens, mark: UInt64, chats: [ChatID]) {
        self.mark = mark
        self.chats = chats
        // Both stand-ins share everything but their last byte.
        let prefix = Array(standIns.csrf.utf8.dropLast())
        let csrfLast = standIns.csrf.utf8.last!
        let composerLast = standIns.composer.utf8.last!
        var bytes: [UInt8] = []
        var holes: [(offset: Int, hole: Hole)] = []
        rendered.withUnsafeBytes { page in
            bytes.reserveCapacity(page.count)
            var copied = 0
            var index = 0
            let end = page.count - prefix.count
            while index < end {
                if page[index] == prefix[0], Self.matches(prefix, in: page, at: index) {
                    let last = page[index + prefix.count]
                    let hole: Hole? = last == csrfLast ? .csrf : last == composerLast ? .composer : nil
                    if let hole {
                        bytes.append(contentsOf: page[copied..<index])
                        holes.append((bytes.count, hole))
                        index += prefix.count + 1
                        copied = index
                        continue
                    }
                }
                index += 1
            }
            bytes.append(contentsOf: page[copied..<page.count])
        }
        self.bytes = bytes
        self.holes = holes
    }

    private static func matches(_ prefix: [UInt8], in page: UnsafeRawBufferPointer, at index: Int) -> Bool {
        for offset in 1..<prefix.count where page[index + offset] != prefix[offset] { return false }
        return true
    }

    /// The page with `tokens` in its holes.
    func filled(with tokens: PageCache.Tokens) -> OutputBuffer {
        let csrf = Array(tokens.csrf.utf8)
        let composer = Array(tokens.composer.utf8)
        var out = OutputBuffer(capacity: bytes.count + holes.count * max(csrf.count, composer.count))
        bytes.withUnsafeBytes { page in
            var copied = 0
            for (offset, hole) in holes {
                out.append(UnsafeRawBufferPointer(rebasing: page[copied..<offset]))
                switch hole {
                case .csrf: csrf.withUnsafeBytes { out.append($0) }
                case .composer: composer.withUnsafeBytes { out.append($0) }
                }
                copied = offset
            }
            out.append(UnsafeRawBufferPointer(rebasing: page[copied..<page.count]))
        }
        return out
    }
}
