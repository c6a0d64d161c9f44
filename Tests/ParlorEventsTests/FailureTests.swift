import InMemoryStores
import Foundation
import Logging
import ParlorDomain
import Synchronization
import Testing
@testable import ParlorEvents
@testable import ParlorLive

/// When the store fails, people are told: a page that missed an update is told to reload, and the log
/// says which event, which request and why.
@Suite struct FailureTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk I/O error: the disk is full" }
    }

    /// An in-memory store whose reads of rows and history (what fan-out reads), or whose sends, fail while set.
    final class FaultyStore: ChatStore {
        let inner = InMemoryChatStore()
        let failReads = Atomic(false)
        let failSends = Atomic(false)

        func createUser(_ user: NewUser, at date: Date) async throws -> User { try await inner.createUser(user, at: date) }
        func user(_ id: UserID) async throws -> User? { try await inner.user(id) }
        func user(handle: String) async throws -> User? { try await inner.user(handle: handle) }
        func users(matching prefix: String, excluding: UserID, limit: Int) async throws -> [User] {
            try await inner.users(matching: prefix, excluding: excluding, limit: limit)
        }
        func delete(_ deletion: MessageDeletion) async throws -> DeletedMessage { try await inner.delete(deletion) }
        func finishPhoto(_ result: PhotoResult) async throws -> Message? { try await inner.finishPhoto(result) }
        func updateProfile(_ change: ProfileChange) async throws -> User { try await inner.updateProfile(change) }
        func createChat(between first: UserID, and second: UserID, at date: Date) async throws -> Chat {
            try await inner.createChat(between: first, and: second, at: date)
        }
        func createRoom(_ room: NewRoom) async throws -> Chat { try await inner.createRoom(room) }
        func createDirectChat(among people: [UserID], at date: Date) async throws -> Chat { try await inner.createDirectChat(among: people, at: date) }
        func createFirstRoom(_ room: NewRoom) async throws -> Chat? { try await inner.createFirstRoom(room) }
        func addMembers(_ people: [UserID], to chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
            try await inner.addMembers(people, to: chat, by: by, at: date)
        }
        func removeMember(_ person: UserID, from chat: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
            try await inner.removeMember(person, from: chat, by: by, at: date)
        }
        func members(of chat: ChatID, viewer: UserID) async throws -> [User]? { try await inner.members(of: chat, viewer: viewer) }
        func toggleReaction(_ toggle: ReactionToggle) async throws -> MessageReactions { try await inner.toggleReaction(toggle) }
        func reactions(to messages: [MessageID]) async throws -> [MessageID: [ReactionCount]] { try await inner.reactions(to: messages) }
        func recordPreview(_ result: PreviewResult) async throws -> Message? { try await inner.recordPreview(result) }
        func removePreview(_ removal: PreviewRemoval) async throws -> Message { try await inner.removePreview(removal) }
        func sharingAChat(with viewer: UserID, among people: Set<UserID>) async throws -> Set<UserID> {
            try await inner.sharingAChat(with: viewer, among: people)
        }
        func readers(of chat: ChatID) async throws -> [Reader] { try await inner.readers(of: chat) }
        func setInvolvement(_ involvement: Involvement, in chat: ChatID, for user: UserID) async throws -> Membership {
            try await inner.setInvolvement(involvement, in: chat, for: user)
        }
        func renameRoom(_ chat: ChatID, name: String, topic: String?, by: UserID, at date: Date) async throws -> RoomChange {
            try await inner.renameRoom(chat, name: name, topic: topic, by: by, at: date)
        }
        func chat(_ id: ChatID) async throws -> Chat? { try await inner.chat(id) }
        func memberCount(of chat: ChatID) async throws -> Int? { try await inner.memberCount(of: chat) }
        func chatList(for viewer: UserID) async throws -> [ChatSummary] { try await inner.chatList(for: viewer) }
        func chatSummary(_ chat: ChatID, for viewer: UserID) async throws -> ChatSummary? {
            if failReads.load(ordering: .relaxed) { throw DiskFull() }
            return try await inner.chatSummary(chat, for: viewer)
        }
        func unreadTotal(for viewer: UserID) async throws -> Int { try await inner.unreadTotal(for: viewer) }
        func send(_ message: OutgoingMessage) async throws -> Message {
            if failSends.load(ordering: .relaxed) { throw DiskFull() }
            return try await inner.send(message)
        }
        func edit(_ edit: MessageEdit) async throws -> Message { try await inner.edit(edit) }
        func message(_ id: MessageID) async throws -> Message? { try await inner.message(id) }
        func messages(in chat: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
            if failReads.load(ordering: .relaxed) { throw DiskFull() }
            return try await inner.messages(in: chat, before: before, limit: limit)
        }
        func messages(in chat: ChatID, after: MessageID, limit: Int) async throws -> MessagePage {
            try await inner.messages(in: chat, after: after, limit: limit)
        }
        func markRead(_ report: ReadReport) async throws -> MessageID? { try await inner.markRead(report) }
        func membership(_ chat: ChatID, _ user: UserID) async throws -> Membership? { try await inner.membership(chat, user) }
    }

    final class Lines: Sendable {
        let all = Mutex<[(message: String, metadata: [String: String])]>([])

        var logger: Logger { Logger(label: "test") { _ in Handler(lines: self) } }

        struct Handler: LogHandler {
            let lines: Lines
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                lines.all.withLock { $0.append(("\(event.message)", (event.metadata ?? [:]).mapValues { "\($0)" })) }
            }
        }
    }

    struct World {
        let store = FaultyStore()
        let lines = Lines()
        let handler: EventHandler
        let router: EventRouter
        let live: LiveRunner
        let ana: User
        let ben: User
        let chat: Chat

        init() async throws {
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_698_300))
            let bus = InProcessEventBus()
            handler = EventHandler(store: store, clock: clock, logger: lines.logger, bus: bus, templates: { ChatWorld.templates })
            router = EventRouter(store: store, bus: bus, clock: clock, logger: lines.logger)
            live = LiveRunner(handler)
            ana = try await ChatWorld.signUp(router, "ana", "Ana Lima", "Europe/Paris")
            ben = try await ChatWorld.signUp(router, "ben", "Ben Okafor", "Europe/Paris")
            guard case .created(let chat) = await router.send(.creating(creator: ana.id, contactHandle: "ben")) else { throw Refusal.notFound }
            self.chat = chat
        }

        func page(_ viewer: User, open: Bool) async throws -> (RecordingListener, ListenerRegistration) {
            let listener = RecordingListener()
            let registration = try await handler.register(listener, for: PageSubscription(viewer: viewer.id, openChat: open ? chat.id : nil))
            listener.clear()
            return (listener, registration)
        }
    }

    @Test func aStoreFailureDuringFanOutTellsEveryPageThatMissedItToReloadAndLogsTheCause() async throws {
        let world = try await World()
        let (anaOpen, a1) = try await world.page(world.ana, open: true)
        let (anaList, a2) = try await world.page(world.ana, open: false)
        let (benOpen, b1) = try await world.page(world.ben, open: true)
        defer { [a1, a2, b1].forEach { $0.cancel() } }

        world.store.failReads.store(true, ordering: .relaxed)
        let sent = await world.router.send(.sending(OutgoingMessage(
            chatID: world.chat.id, senderID: world.ana.id, body: "secret words", token: "t1", createdAt: Date(timeIntervalSince1970: 1_795_698_300)
        )), requestID: "req-42")
        await world.handler.settled()
        guard case .sent = sent else {
            Issue.record("the message itself is stored: \(sent)")
            return
        }
        for page in [anaOpen, anaList, benOpen] {
            #expect(page.steps.filter { $0 == "refresh page" }.count == 1, "\(page.steps)")
        }
        let line = try #require(world.lines.all.withLock { $0 }.first { $0.message.contains("told to reload") })
        #expect(line.metadata["event"] == "message.sent")
        #expect(line.metadata["request"] == "req-42")
        #expect(line.metadata["error"]?.contains("the disk is full") == true)
        #expect(line.metadata["pages"] == "3")
        #expect(!world.lines.all.withLock { $0 }.contains { $0.message.contains("secret") || $0.metadata.values.contains { $0.contains("secret") } })

        // Once the store answers again, updates flow as before.
        world.store.failReads.store(false, ordering: .relaxed)
        for page in [anaOpen, anaList, benOpen] { page.clear() }
        _ = await world.router.send(.sending(OutgoingMessage(
            chatID: world.chat.id, senderID: world.ben.id, body: "again", token: "t2", createdAt: Date(timeIntervalSince1970: 1_795_698_360)
        )))
        await world.handler.settled()
        #expect(!benOpen.steps.contains("refresh page") && benOpen.steps.contains { $0.hasPrefix("append") })
    }

    @Test func theRouterLogsWhyAnEventBecameUnavailable() async throws {
        let world = try await World()
        world.store.failSends.store(true, ordering: .relaxed)
        let outgoing = OutgoingMessage(chatID: world.chat.id, senderID: world.ana.id, body: "hello", token: "t3", createdAt: Date(timeIntervalSince1970: 1))
        let answer = await world.router.send(.sending(outgoing), requestID: "req-7")
        guard case .failedSending(_, .unavailable) = answer else {
            Issue.record("a failed write is 'try again': \(answer)")
            return
        }
        let line = try #require(world.lines.all.withLock { $0 }.first { $0.message.contains("could not apply") })
        #expect(line.metadata["event"] == "message.sending")
        #expect(line.metadata["request"] == "req-7")
        #expect(line.metadata["error"] == "disk I/O error: the disk is full")
    }
}
