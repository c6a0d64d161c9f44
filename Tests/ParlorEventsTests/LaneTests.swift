import InMemoryStores
import Foundation
import ParlorDomain
import ParlorStorage
import ParlorViews
import Synchronization
import Testing
@testable import ParlorEvents
@testable import ParlorLive

/// The live pages apply different chats' events side by side, each chat's in its own lane and order: every
/// page still gets each message of its chat once and in order, and a person in many chats ends with the
/// list and unread total the store has, however the lanes interleave.
@Suite struct LaneTests {
    /// A small, seeded generator: a failing interleaving can be run again from the seed it printed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    /// The item ids of a chat list page after applying every update it received, top first.
    /// The list's rows as the page shows them: rooms, then direct chats, each section in its own order.
    static func listOrder(_ page: RecordingListener) -> [String] {
        var rooms: [String] = []
        var direct: [String] = []
        for update in page.updates {
            switch (update.action, update.fragment) {
            case (.replace, .chatList(let list)?):
                rooms = list.rooms.map(\.domID)
                direct = list.directChats.map(\.domID)
            case (.remove, _):
                rooms.removeAll { $0 == update.target }
                direct.removeAll { $0 == update.target }
            case (.prepend, .chatListItem(let item)?):
                rooms.removeAll { $0 == item.domID }
                direct.removeAll { $0 == item.domID }
                if update.target == ChatListViewModel.roomsDomID { rooms.insert(item.domID, at: 0) } else { direct.insert(item.domID, at: 0) }
            default: break
            }
        }
        return rooms + direct
    }

    /// The message ids a page was given new cells for (appended, or its whole history), in that order: a
    /// cell drawn again in place (a "Read" mark) is not a delivery.
    static func appended(_ page: RecordingListener) -> [String] {
        page.updates.flatMap { update -> [String] in
            switch (update.action, update.fragment) {
            case (.append, .messageCell(let cell)?): [cell.domID]
            case (.append, .daySection(let day)?): day.messages.map(\.domID)
            case (.replace, .messages(let region)?): region.days.flatMap { $0.messages.map(\.domID) }
            default: []
            }
        }.filter { $0.hasPrefix("message-") }
    }

    /// The count the page's badge shows last.
    static func badge(_ page: RecordingListener) -> String? {
        page.fragments.compactMap { fragment -> UnreadBadgeViewModel? in
            if case .badge(let badge) = fragment { badge } else { nil }
        }.last?.count
    }

    @Test(arguments: Backend.allCases)
    func eachChatKeepsItsOrderAndEveryListItsTotalUnderARandomInterleaving(_ backend: Backend) async throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SeededGenerator(state: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-lanes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store: any ChatStore = switch backend {
        case .inMemory: InMemoryChatStore()
        case .sqlite: try SQLiteChatStore(path: folder.appendingPathComponent("parlor.sqlite").path)
        }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_698_300))
        let bus = InProcessEventBus()
        let handler = EventHandler(store: store, clock: clock, bus: bus, templates: { ChatWorld.templates }, lanes: 4)
        let router = EventRouter(store: store, bus: bus, clock: clock)
        let live = LiveRunner(handler)
        defer { withExtendedLifetime(live) {} }

        // Hana is in a chat with each of eight people; everyone has a page open on their chat with her, and she
        // has her list open and one conversation.
        let hana = try await ChatWorld.signUp(router, "hana", "Hana", "Europe/Paris")
        var people: [User] = []
        var chats: [Chat] = []
        for index in 0..<8 {
            let person = try await ChatWorld.signUp(router, "person\(index)", "Person \(index)", "Asia/Tokyo")
            guard case .created(let chat) = await router.send(.creating(creator: hana.id, contactHandle: person.handle)) else {
                throw Refusal.unavailable
            }
            people.append(person)
            chats.append(chat)
        }
        #expect(Set(chats.map { LiveLanes.index($0.id.rawValue, count: handler.laneCount) }).count == handler.laneCount, "every lane has chats")
        await handler.settled()
        var registrations: [ListenerRegistration] = []
        var pages: [RecordingListener] = []
        for (person, chat) in zip(people, chats) {
            let page = RecordingListener()
            registrations.append(try await handler.register(page, for: PageSubscription(viewer: person.id, openChat: chat.id)))
            pages.append(page)
        }
        let hanaList = RecordingListener()
        registrations.append(try await handler.register(hanaList, for: PageSubscription(viewer: hana.id)))
        let hanaOpen = RecordingListener()
        registrations.append(try await handler.register(hanaOpen, for: PageSubscription(viewer: hana.id, openChat: chats[0].id)))
        defer { registrations.forEach { $0.cancel() } }

        // Each chat's messages come from its own task, from either member, with random pauses; a read now and then.
        let plans = chats.indices.map { _ in
            (0..<20).map { _ in (fromHana: Bool.random(using: &random), pause: Int.random(in: 0...3, using: &random), read: Int.random(in: 0...9, using: &random) == 0) }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, plan) in plans.enumerated() {
                let chat = chats[index]
                let person = people[index]
                group.addTask {
                    for (step, move) in plan.enumerated() {
                        for _ in 0..<move.pause { await Task.yield() }
                        let sender = move.fromHana ? hana : person
                        _ = await router.send(.sending(OutgoingMessage(
                            chatID: chat.id, senderID: sender.id, body: "\(index).\(step)", token: "t\(index)-\(step)", createdAt: clock.now
                        )))
                        if move.read { _ = await router.send(.userReads(ReadReport(chatID: chat.id, readerID: hana.id))) }
                    }
                }
            }
        }
        await handler.settled()

        for (index, chat) in chats.enumerated() {
            let stored = try await store.messages(in: chat.id, before: nil, limit: 100).messages.map { "message-\($0.id)" }
            #expect(stored.count == 20)
            #expect(Self.appended(pages[index]) == stored, "chat \(index), seed \(seed)")
            #expect(Self.badge(pages[index]) == Self.expectedBadge(try await store.unreadTotal(for: people[index].id)), "seed \(seed)")
        }
        let hanaStored = try await store.messages(in: chats[0].id, before: nil, limit: 100).messages.map { "message-\($0.id)" }
        #expect(Self.appended(hanaOpen) == hanaStored, "seed \(seed)")
        let total = try await store.unreadTotal(for: hana.id)
        #expect(Self.badge(hanaList) == Self.expectedBadge(total), "seed \(seed)")
        #expect(Self.badge(hanaOpen) == Self.expectedBadge(total), "seed \(seed)")
        let listed = try await store.chatList(for: hana.id)
        let order = (listed.filter(\.heading.isRoom) + listed.filter { !$0.heading.isRoom }).map { "chat-item-\($0.chatID)" }
        #expect(Self.listOrder(hanaList) == order, "seed \(seed)")
        #expect(Self.listOrder(hanaOpen) == order, "seed \(seed)")
    }

    static func expectedBadge(_ total: Int) -> String? {
        total == 0 ? nil : total > 99 ? "99+" : "\(total)"
    }

    @Test func aChatWhoseLaneIsFarBehindHoldsItsOwnSourcesOnly() async throws {
        let bus = InProcessEventBus()
        let store = InMemoryChatStore()
        // Not running: nothing is applied, so the lane of the busy chat stays behind.
        let handler = EventHandler(store: store, clock: ManualClock(Date()), bus: bus, templates: { ChatWorld.templates }, lanes: 2, laneLimit: 4)
        let busy = ChatID(2)
        let quiet = ChatID(3)
        #expect(LiveLanes.index(busy.rawValue, count: 2) != LiveLanes.index(quiet.rawValue, count: 2))
        for id in 1...4 {
            let message = Message(id: MessageID(Int64(id)), chatID: busy, senderID: UserID(1), body: "x", createdAt: Date())
            bus.publish(PublishedEvent(.message(.sent(message, token: "t\(id)"))))
        }
        await handler.room(for: quiet)  // at once: its lane is not behind
        let through = Mutex(false)
        let source = Task {
            await handler.room(for: busy)
            through.withLock { $0 = true }
        }
        for _ in 0..<100_000 where !through.withLock({ $0 }) { await Task.yield() }
        #expect(!through.withLock { $0 }, "a source of the busy chat waits")
        let live = LiveRunner(handler)
        await source.value
        #expect(through.withLock { $0 })
        withExtendedLifetime(live) {}
    }

    @Test func aBarrierRunsItsWorkOnceAfterEveryLaneArrivedAndAnAbandonedOneLetsWaitersGo() async {
        let runs = Mutex(0)
        let barrier = LaneBarrier(lanes: 3) { runs.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { await barrier.arrive() } }
        }
        #expect(runs.withLock { $0 } == 1)

        let abandoned = Mutex(0)
        let stopped = LaneBarrier(lanes: 2, work: { runs.withLock { $0 += 1 } }, abandoned: { abandoned.withLock { $0 += 1 } })
        let waiter = Task { await stopped.arrive() }
        stopped.abandon()
        await waiter.value
        stopped.abandon()
        #expect(runs.withLock { $0 } == 1 && abandoned.withLock { $0 } == 1)
    }
}
