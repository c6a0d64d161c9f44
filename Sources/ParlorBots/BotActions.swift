import Foundation
import ParlorDomain

/// What a bot may do in Parlor: the bot API's operations, for one bot. The API's HTTP routes call them with the bot
/// whose key a request carries; Parlor Bot calls them with itself. Each asks the store whether the bot is in the room
/// at that moment, and every change goes through the router like a person's.
public struct BotActions: Sendable {
    public let bot: User
    let router: any EventSink
    let store: any ChatReads
    let clock: any WallClock

    public init(bot: User, router: any EventSink, store: any ChatReads, clock: any WallClock) {
        self.bot = bot
        self.router = router
        self.store = store
        self.clock = clock
    }

    /// Why an action was refused: no such room for this bot (a room it is not in is one it cannot see), or what the
    /// router refused.
    public enum Failure: Error, Equatable, Sendable {
        case noRoom
        case refused(Refusal)
    }

    /// The room, when the bot is in it now.
    public func room(_ id: ChatID) async throws -> ChatID {
        guard try await store.membership(id, bot.id) != nil else { throw Failure.noRoom }
        return id
    }

    /// Posts a message in a room the bot is in, with a photo accepted for it; the same `token` twice stores one message.
    public func post(
        _ text: String, in room: ChatID, replyTo: MessageID? = nil, token: String, photo: NewPhoto? = nil, requestID: String? = nil
    ) async throws -> Message {
        let chat = try await self.room(room)
        let outgoing = OutgoingMessage(chatID: chat, senderID: bot.id, body: text, replyTo: replyTo, token: token, createdAt: clock.now, photo: photo)
        switch await router.send(.sending(outgoing), requestID: requestID) {
        case .sent(let message, _): return message
        case .failedSending(_, let reason): throw Failure.refused(reason)
        default: throw Failure.refused(.unavailable)
        }
    }

    /// Marks the room read up to a message, as a person's page does: its sender sees "Read". False when the mark did
    /// not move (a later message was read first, or the message is not there).
    public func markRead(_ room: ChatID, upTo message: MessageID, requestID: String? = nil) async throws -> Bool {
        let chat = try await self.room(room)
        if case .userRead = await router.send(.userReads(ReadReport(chatID: chat, readerID: bot.id, upTo: message)), requestID: requestID) {
            return true
        }
        return false
    }

    /// The bot's direct chat with the person of `handle`, made the first time.
    public func directChat(with handle: String, requestID: String? = nil) async throws -> ChatID {
        switch await router.send(.creating(creator: bot.id, contactHandle: handle), requestID: requestID) {
        case .created(let chat): return chat.id
        case .createFailed(_, .chatExists(let existing)): return existing
        case .createFailed(_, let reason): throw Failure.refused(reason)
        default: throw Failure.refused(.unavailable)
        }
    }
}

/// Which messages a bot is told of, by webhook or, for Parlor Bot, in Parlor: a person's (never a bot's, so two bots
/// cannot answer each other without end) in a chat the bot is in, when the chat is a direct one or the message names it.
public enum BotAudience {
    public static func isAddressed(_ bot: User, by message: Message, from sender: User, in chat: Chat) -> Bool {
        !sender.isBot && sender.id != bot.id && mayAddress(bot, message, in: chat)
    }

    /// All of it but who wrote: what can be told without reading the sender.
    public static func mayAddress(_ bot: User, _ message: Message, in chat: Chat) -> Bool {
        guard message.notice == nil, message.feed == nil, !message.isDeleted, message.senderID != bot.id, chat.hasMember(bot.id) else { return false }
        return chat.kind == .direct || message.named.handles.contains(bot.handle.lowercased())
    }
}
