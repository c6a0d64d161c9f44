import BoundedWork
import Foundation
import Logging
import ParlorBots
import ParlorDomain
import ParlorNotifications
import ParlorTemplates
import ParlorViews
import Synchronization

/// Tells a bot's webhook when a person mentions the bot in a chat it is in, or writes to it in a direct chat:
/// `{"user": {…}, "room": {…}, "message": {"id", "html", "plain"}}`. A `200 text/plain` or `text/html` answer is
/// posted back as the bot's reply (through the router, like any message). It watches the events this instance applies
/// (with several instances, each message is handled once, where it was stored) and delivers on its own task: the send
/// that caused it never waits. Bots' own messages tell nobody, so two bots cannot answer each other without end.
public final class BotWebhooks: EventObserver {
    let store: any ChatReads & AdministrationReads
    let delivery: any WebhookDelivering
    let templates: @Sendable () -> TemplateSet
    let paths: Paths
    let clock: any WallClock
    let logger: Logger
    /// Sent messages waiting to be told to the bots they concern, ``deliveryLimit`` at once.
    let sent: WorkerQueue<Message>
    static let deliveryLimit = 32
    /// Deliveries that ended, by how (for tests and metrics).
    public let outcomes = Mutex<[String: Int]>([:])

    public init(
        store: any ChatReads & AdministrationReads, delivery: any WebhookDelivering, templates: @escaping @Sendable () -> TemplateSet, paths: Paths,
        clock: any WallClock, logger: Logger, refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.clock = clock
        self.store = store
        self.delivery = delivery
        self.templates = templates
        self.paths = paths
        self.logger = logger
        sent = WorkerQueue(high: 10_000, concurrency: Self.deliveryLimit, refused: refused)
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        guard case .message(.sent(let message, _)) = event, message.notice == nil, message.feed == nil, !message.isDeleted else { return }
        sent.submit(message)
    }

    /// Delivers each message to the bots it concerns, several at once, until cancelled. `router` takes the replies.
    public func run(router: any EventSink) async {
        await sent.run { [self] message in
            let calls: [(Bot, [UInt8])]
            do {
                calls = try await self.calls(for: message)
            } catch {
                logger.warning("could not decide which bots to tell", metadata: ["message": "\(message.id)", "error": "\(error)"])
                return
            }
            // A message that names several bots tells them side by side.
            await withDiscardingTaskGroup { group in
                for (bot, body) in calls { group.addTask { await self.deliver(body, to: bot, about: message, router: router) } }
            }
        }
    }

    /// Returns once every message observed so far was told to its bots (and their replies sent on).
    public func settled() async { await sent.settled() }

    /// The bots with a webhook that `message` concerns (``BotAudience``: named in it, or the other side of its direct
    /// chat; members of its chat now), each with the body to post. None for a bot's own words.
    func calls(for message: Message) async throws -> [(Bot, [UInt8])] {
        guard let sender = try await store.user(message.senderID), !sender.isBot, let chat = try await store.chat(message.chatID) else { return [] }
        var candidates: [UserID] = []
        if chat.kind == .direct {
            candidates = chat.members.filter { $0 != sender.id }
        } else {
            for handle in message.named.handles.sorted().prefix(20) {
                if let user = try await store.user(handle: handle), user.isBot, chat.hasMember(user.id) { candidates.append(user.id) }
            }
        }
        var calls: [(Bot, [UInt8])] = []
        for id in candidates {
            guard let bot = try await store.bot(id), bot.isActive, bot.webhookURL != nil, BotAudience.isAddressed(bot.user, by: message, from: sender, in: chat) else {
                continue
            }
            calls.append((bot, try body(message, from: sender, in: chat, for: bot)))
        }
        return calls
    }

    struct Payload: Encodable {
        struct Person: Encodable {
            let id: Int64
            let handle: String
            let name: String
        }

        struct Room: Encodable {
            let id: Int64
            let name: String
            let kind: String
        }

        struct Words: Encodable {
            let id: Int64
            let html: String
            let plain: String
        }

        let user: Person
        let room: Room
        let message: Words
    }

    func body(_ message: Message, from sender: User, in chat: Chat, for bot: Bot) throws -> [UInt8] {
        let context = ViewerContext(viewer: bot.user, now: message.createdAt, basePath: paths.basePath)
        let html = templates().render(MessageCellBuilder(context: context).html(message), capacity: 1024).string
        let payload = Payload(
            user: .init(id: sender.id.rawValue, handle: sender.handle, name: sender.displayName),
            room: .init(id: chat.id.rawValue, name: chat.name ?? "", kind: chat.kind.rawValue),
            message: .init(id: message.id.rawValue, html: html, plain: MessageFormat.plainText(message.body))
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(payload))
    }

    func deliver(_ body: [UInt8], to bot: Bot, about message: Message, router: any EventSink) async {
        guard let url = bot.webhookURL else { return }
        let outcome = await delivery.post(body, to: url)
        switch outcome {
        case .reply(let text):
            let reply = String(text.prefix(MessageText.maximumLength))
            let result = await router.send(.sending(OutgoingMessage(
                chatID: message.chatID, senderID: bot.user.id, body: reply, replyTo: message.id, token: "webhook-\(message.id)-\(bot.user.id)",
                createdAt: clock.now
            )), requestID: nil)
            if case .failedSending(_, let reason) = result {
                logger.notice("a bot's reply was refused", metadata: ["bot": "\(bot.user.id)", "message": "\(message.id)", "reason": "\(reason)"])
                count("refused")
            } else {
                count("replied")
            }
        case .noReply:
            count("delivered")
        case .failed(let why):
            logger.notice("a bot's webhook failed", metadata: ["bot": "\(bot.user.id)", "message": "\(message.id)", "why": "\(why)"])
            count("failed")
        }
    }

    private func count(_ outcome: String) {
        outcomes.withLock { $0[outcome, default: 0] += 1 }
    }
}
