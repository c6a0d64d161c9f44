import InMemoryStores
import Foundation
import ParlorDomain
import ParlorStorage
import Testing
@testable import ParlorEvents
@testable import ParlorLive

/// The live pages take events in the order they were published, register pages between two events, and
/// keep a cursor per open conversation: every message reaches every page exactly once and in order, even
/// when the events announcing messages stored together were published the other way round. Deterministic:
/// events are published before the live pages start, so they are taken as one batch, in a known order.
@Suite struct OrderingTests {
    /// A store, a bus, the live pages (not running until `start`) and a router, with Ana and Ben in a chat.
    struct World {
        let store: any ChatStore
        let bus = InProcessEventBus()
        let handler: EventHandler
        let router: EventRouter
        let clock = ManualClock(Date(timeIntervalSince1970: 1_795_698_300))
        let folder: URL
        var ana: User!
        var ben: User!
        var chat: Chat!

        init(_ backend: Backend) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-order-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            store = switch backend {
            case .inMemory: InMemoryChatStore()
            case .sqlite: try SQLiteChatStore(path: folder.appendingPathComponent("parlor.sqlite").path)
            }
            handler = EventHandler(store: store, clock: clock, bus: bus, templates: { ChatWorld.templates })
            router = EventRouter(store: store, bus: bus, clock: clock)
            ana = try await ChatWorld.signUp(router, "ana", "Ana Lima", "Europe/Paris")
            ben = try await ChatWorld.signUp(router, "ben", "Ben Okafor", "Europe/Paris")
            guard case .created(let chat) = await router.send(.creating(creator: ana.id, contactHandle: "ben")) else { throw Refusal.notFound }
            self.chat = chat
        }

        /// Stores a message without publishing anything: as if its event were still on its way.
        func store(_ body: String, from sender: User, token: String) async throws -> Message {
            try await store.send(OutgoingMessage(chatID: chat.id, senderID: sender.id, body: body, token: token, createdAt: clock.now))
        }

        /// The message ids a page was given cells for, in the order it was given them.
        static func delivered(_ page: RecordingListener) -> [String] {
            page.fragments.flatMap { fragment -> [String] in
                switch fragment {
                case .messageCell(let cell): [cell.domID]
                case .daySection(let day): day.messages.map(\.domID)
                case .messages(let region): region.days.flatMap { $0.messages.map(\.domID) }
                default: []
                }
            }.filter { $0.hasPrefix("message-") }
        }
    }

    @Test(arguments: Backend.allCases)
    func messagesAnnouncedTheOtherWayRoundArriveInOrderOnce(_ backend: Backend) async throws {
        let world = try await World(backend)
        let first = try await world.store("first", from: world.ana, token: "a")
        let second = try await world.store("second", from: world.ben, token: "b")
        // Two sends of one group commit whose routers published in the opposite order.
        world.bus.publish(PublishedEvent(.message(.sent(second, token: "b"))))
        world.bus.publish(PublishedEvent(.message(.sent(first, token: "a"))))
        let page = RecordingListener()
        let runner = LiveRunner(world.handler)
        // Registered after both events: its first state already has both, and nothing comes twice.
        let registration = try await world.handler.register(page, for: PageSubscription(viewer: world.ben.id, openChat: world.chat.id))
        defer { registration.cancel(); withExtendedLifetime(runner) {} }
        #expect(World.delivered(page) == ["message-\(first.id)", "message-\(second.id)"])
    }

    @Test(arguments: Backend.allCases)
    func aPageOpenBeforeTheSendsGetsEveryMessageOnceInIdOrder(_ backend: Backend) async throws {
        let world = try await World(backend)
        let runner = LiveRunner(world.handler)
        defer { withExtendedLifetime(runner) {} }
        let page = RecordingListener()
        let registration = try await world.handler.register(page, for: PageSubscription(viewer: world.ben.id, openChat: world.chat.id))
        defer { registration.cancel() }
        await world.handler.settled()
        page.clear()
        var stored: [Message] = []
        for index in 0..<5 { stored.append(try await world.store("m\(index)", from: index % 2 == 0 ? world.ana : world.ben, token: "t\(index)")) }
        // Announced out of order, one of them twice (a retry of the same token answers the same message).
        for index in [3, 0, 4, 1, 2, 4] { world.bus.publish(PublishedEvent(.message(.sent(stored[index], token: "t\(index)")))) }
        await world.handler.settled()
        #expect(World.delivered(page) == stored.map { "message-\($0.id)" })
    }

    @Test(arguments: Backend.allCases)
    func aPageThatRegistersWhileMessagesAreOnTheirWayGetsEachExactlyOnce(_ backend: Backend) async throws {
        let world = try await World(backend)
        let before = try await world.store("before", from: world.ana, token: "x")
        // Its event is queued first, then the page, then a message stored after the page read its state.
        world.bus.publish(PublishedEvent(.message(.sent(before, token: "x"))))
        let page = RecordingListener()
        async let registration = world.handler.register(page, for: PageSubscription(viewer: world.ben.id, openChat: world.chat.id))
        let runner = LiveRunner(world.handler)
        defer { withExtendedLifetime(runner) {} }
        let registered = try await registration
        defer { registered.cancel() }
        let after = try await world.store("after", from: world.ana, token: "y")
        world.bus.publish(PublishedEvent(.message(.sent(after, token: "y"))))
        world.bus.publish(PublishedEvent(.message(.sent(before, token: "x"))))
        await world.handler.settled()
        #expect(World.delivered(page) == ["message-\(before.id)", "message-\(after.id)"])
    }

    @Test(arguments: Backend.allCases)
    func aReconnectingPageStartsFromItsNewStateAndMissesNothing(_ backend: Backend) async throws {
        let world = try await World(backend)
        let runner = LiveRunner(world.handler)
        defer { withExtendedLifetime(runner) {} }
        let subscription = PageSubscription(viewer: world.ben.id, openChat: world.chat.id)
        let first = RecordingListener()
        let firstRegistration = try await world.handler.register(first, for: subscription)
        _ = await world.router.send(.sending(OutgoingMessage(chatID: world.chat.id, senderID: world.ana.id, body: "one", token: "1", createdAt: world.clock.now)))
        await world.handler.settled()
        firstRegistration.cancel()  // the connection drops
        let missed = await world.router.send(.sending(OutgoingMessage(chatID: world.chat.id, senderID: world.ana.id, body: "two", token: "2", createdAt: world.clock.now)))
        let again = RecordingListener()
        let registration = try await world.handler.register(again, for: subscription)
        defer { registration.cancel() }
        let three = await world.router.send(.sending(OutgoingMessage(chatID: world.chat.id, senderID: world.ana.id, body: "three", token: "3", createdAt: world.clock.now)))
        await world.handler.settled()
        guard case .sent(let two, _) = missed, case .sent(let last, _) = three else { Issue.record("not sent"); return }
        let all = try await world.store.messages(in: world.chat.id, before: nil, limit: 10).messages
        #expect(World.delivered(first) == [all[0]].map { "message-\($0.id)" })
        #expect(World.delivered(again) == all.map { "message-\($0.id)" })
        #expect(all.map(\.id) == [all[0].id, two.id, last.id])
    }

    @Test func theRouterAnswersWithoutWaitingForThePages() async throws {
        let world = try await World(.inMemory)
        // No live pages run at all: the send is stored and answered; its events wait on the bus.
        let result = await world.router.send(.sending(OutgoingMessage(
            chatID: world.chat.id, senderID: world.ana.id, body: "hello", token: "h", createdAt: world.clock.now
        )))
        guard case .sent(let message, _) = result else { Issue.record("\(result)"); return }
        #expect(try await world.store.message(message.id) == message)
        let page = RecordingListener()
        async let registration = world.handler.register(page, for: PageSubscription(viewer: world.ben.id, openChat: world.chat.id))
        let runner = LiveRunner(world.handler)
        defer { withExtendedLifetime(runner) {} }
        try await registration.cancel()
        #expect(World.delivered(page) == ["message-\(message.id)"], "the page's first state; the queued event adds nothing")
    }
}
