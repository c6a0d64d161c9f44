import Foundation
import ParlorDomain
import Synchronization

/// Parlor Bot: a member anyone can chat with, and the example of an event source outside the core.
/// It greets every new person in a chat of its own, marks each message read after a pause and answers
/// after another, all through the same events a person's browser sends.
public struct ParlorBot: EventObserver {
    /// The bot's handle; people find it as @parlor.
    public static let handle = "parlor"

    public let user: User
    public let readDelay: Duration
    public let replyDelay: Duration
    private let clock: any WallClock
    /// Read only, to ignore chats the bot is not in; every change goes through the router.
    private let store: any ChatStore
    /// Whether the bot is in each chat it was asked about: a chat's members never change, and every message
    /// sent anywhere asks (bounded: forgotten when full).
    private let isMember = IsMember()

    final class IsMember: Sendable {
        private let known = Mutex<[ChatID: Bool]>([:])
        static let limit = 100_000

        func callAsFunction(_ bot: UserID, of chat: ChatID, in store: any ChatStore) async -> Bool {
            if let answer = known.withLock({ $0[chat] }) { return answer }
            guard let stored = try? await store.chat(chat) else { return false }
            let answer = stored.hasMember(bot)
            known.withLock { known in
                if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
                known[chat] = answer
            }
            return answer
        }
    }

    /// Finds the bot's account, creating it on first start, and starts listening to `router`.
    public static func start(
        router: any EventSink, store: any ChatStore, clock: any WallClock,
        readDelay: Duration = .seconds(1), replyDelay: Duration = .seconds(2)
    ) async throws -> ParlorBot {
        var user = try await store.user(handle: handle)
        if user == nil {
            let created = await router.send(.signingUp(NewUser(handle: handle, displayName: "Parlor Bot", isBot: true)))
            switch created {
            case .signedUp(let bot): user = bot
            // Another instance starting at the same moment made it first.
            case .signUpFailed(_, .handleTaken): user = try await store.user(handle: handle)
            case .signUpFailed(_, let reason): throw reason
            default: break
            }
        }
        guard let user else { throw Refusal.unavailable }
        let bot = ParlorBot(user: user, readDelay: readDelay, replyDelay: replyDelay, clock: clock, store: store)
        router.addObserver(bot)
        return bot
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        switch event {
        case .user(.signedUp(let person)) where !person.isBot:
            Task { await welcome(person, router: router) }
        case .message(.sent(let message, _)) where message.senderID != user.id && message.feed == nil:
            Task { await answer(message, router: router) }
        default:
            break
        }
    }

    private func welcome(_ person: User, router: any EventSink) async {
        let chat: ChatID
        switch await router.send(.creating(creator: user.id, contactHandle: person.handle)) {
        case .created(let created): chat = created.id
        case .createFailed(_, .chatExists(let existing)): chat = existing
        default: return
        }
        await router.send(.sending(OutgoingMessage(
            chatID: chat, senderID: user.id,
            body: "Welcome to Parlor, \(person.displayName)! I am Parlor Bot. Write me anything: I read it, and I answer.",
            token: "bot-welcome-\(person.id)", createdAt: clock.now
        )))
    }

    private func answer(_ message: Message, router: any EventSink) async {
        guard await isMember(user.id, of: message.chatID, in: store) else { return }
        try? await Task.sleep(for: readDelay)
        guard case .userRead = await router.send(.userReads(ReadReport(chatID: message.chatID, readerID: user.id, upTo: message.id))) else {
            return
        }
        try? await Task.sleep(for: replyDelay)
        await router.send(.sending(OutgoingMessage(
            chatID: message.chatID, senderID: user.id, body: Self.reply(to: message.body), replyTo: message.id,
            token: "bot-reply-\(message.id)", createdAt: clock.now
        )))
    }

    /// What the bot says back: a greeting to a greeting, otherwise what it understood.
    static func reply(to body: String) -> String {
        let words = body.lowercased().split { !$0.isLetter }
        if words.contains(where: { ["hello", "hi", "hey", "bonjour", "hola"].contains($0) }) {
            return "Hello! Nice to hear from you."
        }
        let excerpt = body.count > 200 ? String(body.prefix(200)) + "…" : body
        return "You said: \u{201C}\(excerpt)\u{201D}. I have read it."
    }
}
