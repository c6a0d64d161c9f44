import Clocks
import Foundation
import ParlorDomain
import Synchronization

/// A page's listener whose chat list keeps pace with busy rooms (``RowPacing``): rows of chats not open on
/// the page, and the badge, at most once per the pacer's interval each, the newest state at its end.
public final class PacedListener: Listener {
    private let inner: any Listener
    private let pacer: RowPacer
    private let pacing: Mutex<RowPacing>

    /// `inner` receives what goes out, in order; `openChat` is the chat the page shows, if any.
    public init(_ inner: any Listener, openChat: ChatID?, pacer: RowPacer) {
        self.inner = inner
        self.pacer = pacer
        pacing = Mutex(RowPacing(interval: pacer.interval, openChat: openChat.map { "\($0)" }))
    }

    public func receive(_ update: ScreenUpdate) { receive([update]) }

    public func end() { inner.end() }

    public func receive(_ updates: [ScreenUpdate]) {
        let now = pacer.now()
        // Handed on under the lock: a flush of what was held cannot overtake what came after it.
        let due = pacing.withLock { pacing in
            let out = pacing.admit(updates, now: now)
            if !out.isEmpty { inner.receive(out) }
            return pacing.dueAt
        }
        if let due { pacer.hold(self, until: due) }
    }

    /// Sends what is held if it is due at `now`; answers when what is still held is due.
    func flush(now: Double) -> Double? {
        pacing.withLock { pacing in
            let out = pacing.due(now: now)
            if !out.isEmpty { inner.receive(out) }
            return pacing.dueAt
        }
    }
}

/// The clock and the one task behind every ``PacedListener``: while any page holds something, it looks
/// every `tick` for the pages whose held updates are due. Nothing runs while nothing is held.
public final class RowPacer: Sendable {
    /// Seconds a row (or the badge) of a page waits at most after its last change went out.
    public let interval: Double
    let tick: Duration
    private let clock: AnyClock<Duration>
    private let start: AnyClock<Duration>.Instant
    private let waiting = Mutex<Waiting>(Waiting())

    private struct Waiting {
        var pages: [ObjectIdentifier: (page: PacedListener, due: Double)] = [:]
        var running = false
    }

    /// `clock` times the intervals and the ticks (a test drives it).
    public init(interval: Double, tick: Duration = .milliseconds(50), clock: AnyClock<Duration> = AnyClock(ContinuousClock())) {
        self.interval = interval
        self.tick = tick
        self.clock = clock
        start = clock.now
    }

    /// Seconds since the pacer began, the time every page of it is paced by.
    func now() -> Double {
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func hold(_ page: PacedListener, until due: Double) {
        let starts = waiting.withLock { waiting in
            waiting.pages[ObjectIdentifier(page)] = (page, due)
            defer { waiting.running = true }
            return !waiting.running
        }
        if starts { Task.detached { [self] in await flushWhileHolding() } }
    }

    private func flushWhileHolding() async {
        while true {
            try? await clock.sleep(for: tick)
            let now = now()
            let due = waiting.withLock { waiting in waiting.pages.values.filter { $0.due <= now }.map(\.page) }
            var later: [(PacedListener, Double?)] = []
            for page in due { later.append((page, page.flush(now: now))) }
            let done = waiting.withLock { waiting in
                for (page, next) in later {
                    let id = ObjectIdentifier(page)
                    // A page may have held something again meanwhile: its own hold set a due time no earlier.
                    if let current = waiting.pages[id], current.due > now { continue }
                    waiting.pages[id] = next.map { (page, $0) }
                }
                if waiting.pages.isEmpty { waiting.running = false }
                return !waiting.running
            }
            if done { return }
        }
    }
}
