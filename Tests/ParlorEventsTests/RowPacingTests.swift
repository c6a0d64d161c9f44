import ByteOutput
import Clocks
import Foundation
import ParlorDomain
import ParlorViews
import Testing
@testable import ParlorLive

/// A page's list keeps pace with a busy room: rows of chats it does not show, and its badge, change at most once
/// an interval, the newest state at its end, and nothing is lost, doubled or put out of order.
@Suite struct RowPacingTests {
    static let ana = User(id: UserID(1), handle: "ana", displayName: "Ana")
    static let ben = User(id: UserID(2), handle: "ben", displayName: "Ben")
    static let start = Date(timeIntervalSince1970: 1_795_698_300)

    /// The rendered row of chat `chat` whose preview is `text`, as the live pages send it.
    static func item(_ chat: Int64, _ text: String) -> ChatListItemViewModel {
        let message = Message(id: MessageID(Int64(text.utf8.count) + chat * 100), chatID: ChatID(chat), senderID: ben.id, body: text, createdAt: start)
        let summary = ChatSummary(chatID: ChatID(chat), contact: ben, lastMessage: message, unreadCount: 1, lastActivity: start)
        return ChatListBuilder(context: ViewerContext(viewer: ana, now: start)).item(summary, isCurrent: false)
    }

    static func update(_ action: StreamAction, _ target: String, _ fragment: Fragment? = nil, _ label: String) -> ScreenUpdate {
        ScreenUpdate(action: action, target: target, fragment: fragment, html: OutputBuffer(Array(label.utf8)))
    }

    /// Chat `chat` moving to the top with `text`: its row removed, then prepended.
    static func move(_ chat: Int64, _ text: String) -> [ScreenUpdate] {
        [update(.remove, "chat-item-\(chat)", nil, "remove \(chat)"), update(.prepend, "chat-list-items", .chatListItem(item(chat, text)), "top \(chat) \(text)")]
    }

    static func count(_ chat: Int64, _ text: String) -> ScreenUpdate {
        update(.replace, "chat-item-\(chat)", .chatListItem(item(chat, text)), "count \(chat) \(text)")
    }

    static func badge(_ total: Int) -> ScreenUpdate { update(.badge, "unread-badge", nil, "badge \(total)") }

    static func labels(_ updates: [ScreenUpdate]) -> [String] { updates.map { String(decoding: $0.html.bytes, as: UTF8.self) } }

    @Test func theFirstChangeGoesAtOnceAndABurstEndsInItsNewestState() {
        var pacing = RowPacing(interval: 1, openChat: "7")
        #expect(Self.labels(pacing.admit(Self.move(9, "one") + [Self.badge(1)], now: 10)) == ["remove 9", "top 9 one", "badge 1"])
        // Within the second: held, the newest move superseding the one before, the badge likewise.
        #expect(pacing.admit(Self.move(9, "two") + [Self.badge(2)], now: 10.2).isEmpty)
        #expect(pacing.admit(Self.move(9, "three") + [Self.badge(3)], now: 10.5).isEmpty)
        #expect(pacing.dueAt == 11)
        #expect(pacing.due(now: 10.9).isEmpty)
        #expect(Self.labels(pacing.due(now: 11.05)) == ["remove 9", "top 9 three", "badge 3"])
        #expect(!pacing.isHolding && pacing.dueAt == nil)
        // The next change within a second of that one waits again; after it, one goes at once.
        #expect(pacing.admit(Self.move(9, "four"), now: 11.5).isEmpty)
        #expect(Self.labels(pacing.due(now: 12.1)) == ["remove 9", "top 9 four"])
        #expect(Self.labels(pacing.admit(Self.move(9, "five"), now: 13.2)) == ["remove 9", "top 9 five"])
    }

    @Test func theOpenChatsRowAndEverythingElsePassAtOnce() {
        var pacing = RowPacing(interval: 1, openChat: "7")
        let cell = Self.update(.append, "day-7-2026-11-27-messages", nil, "cell")
        let toast = Self.update(.toast, "toasts", nil, "toast")
        _ = pacing.admit(Self.move(7, "a"), now: 0)
        #expect(Self.labels(pacing.admit([cell] + Self.move(7, "b") + [toast], now: 0.1)) == ["cell", "remove 7", "top 7 b", "toast"])
        #expect(!pacing.isHolding)
    }

    @Test func aHeldMoveGoesOutBeforeALaterMoveSoTheOrderIsKept() {
        var pacing = RowPacing(interval: 1, openChat: "7")
        _ = pacing.admit(Self.move(9, "a") + Self.move(8, "x"), now: 0)
        #expect(pacing.admit(Self.move(9, "b"), now: 0.3).isEmpty)
        // Chat 8's new message came after chat 9's: 9 first, then 8 on top, as in the store's order.
        #expect(Self.labels(pacing.admit(Self.move(8, "y"), now: 1.5)) == ["remove 9", "top 9 b", "remove 8", "top 8 y"])
        // So does a move of the open chat's row.
        #expect(pacing.admit(Self.move(9, "c"), now: 1.6).isEmpty)
        #expect(Self.labels(pacing.admit(Self.move(7, "m"), now: 1.7)) == ["remove 9", "top 9 c", "remove 7", "top 7 m"])
    }

    @Test func aCountAfterAHeldMoveKeepsTheMoveAndOnlyTheNewestCount() {
        var pacing = RowPacing(interval: 1, openChat: nil)
        _ = pacing.admit(Self.move(9, "a"), now: 0)
        #expect(pacing.admit(Self.move(9, "b") + [Self.count(9, "b read")], now: 0.2).isEmpty)
        #expect(pacing.admit([Self.count(9, "b read again")], now: 0.4).isEmpty)
        #expect(Self.labels(pacing.due(now: 1)) == ["remove 9", "top 9 b", "count 9 b read again"])
    }

    @Test func aNewWholeListDropsTheHeldRowsButNotTheBadge() {
        var pacing = RowPacing(interval: 1, openChat: "7")
        _ = pacing.admit(Self.move(9, "a") + [Self.badge(1)], now: 0)
        _ = pacing.admit(Self.move(9, "b") + [Self.badge(2)], now: 0.5)
        let list = Self.update(.replace, "chat-list", nil, "list")
        #expect(Self.labels(pacing.admit([list], now: 0.6)) == ["list"])
        #expect(Self.labels(pacing.due(now: 1)) == ["badge 2"])
    }

    @Test func aPacedPageReceivesTheNewestRowAfterTheIntervalOnItsOwn() async throws {
        let recorder = RecordingListener()
        let clock = TestClock<Duration>()
        let page = PacedListener(recorder, openChat: ChatID(7), pacer: RowPacer(interval: 0.2, tick: .milliseconds(10), clock: AnyClock(clock)))
        page.receive(Self.move(9, "one"))
        page.receive(Self.move(9, "two"))
        page.receive(Self.move(9, "three"))
        #expect(recorder.updates.count == 2, "the first move at once, the rest held")
        // Nothing more while the pacer's clock stands still; the newest move once 200 ms of it have passed. Each step
        // waits for the pacer's task to sleep on the clock (the pool it shares with every suite may hold it back).
        var moved = Duration.zero
        while recorder.updates.count < 4, moved < .seconds(2) {
            for _ in 0..<20_000 {
                do { try await clock.checkSuspension() } catch { break }
                await Task.yield()
            }
            #expect(recorder.updates.count == 2 || moved >= .milliseconds(200), "held until the interval ends")
            await clock.advance(by: .milliseconds(10))
            moved += .milliseconds(10)
        }
        #expect(moved >= .milliseconds(200) && moved <= .milliseconds(300), "sent after \(moved) of the pacer's clock")
        #expect(Self.labels(recorder.updates) == ["remove 9", "top 9 one", "remove 9", "top 9 three"])
    }
}
