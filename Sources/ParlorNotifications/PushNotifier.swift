import BoundedWork
import Logging
import ParlorDomain

/// Tells people of a message by Web Push when no Parlor page of theirs is visible: in a direct chat and in a room
/// they follow for everything, every message of others; in a room followed for mentions (or hidden), those that
/// name them; never in a muted one. It watches the events the router applies on this instance (so with several
/// instances each message is pushed once, by the instance that stored it) and hands the work to its own task:
/// the send that caused it does not wait.
public final class PushNotifier: EventObserver {
    let store: any PushReads
    let chats: any ChatReads
    let visibility: any PageVisibility
    let queue: PushQueue
    let pathPrefix: String
    /// A message's text as a person reads it (formatting marks gone; a feed post's title), drawn as Parlor's lists do.
    let words: @Sendable (Message) -> String
    let logger: Logger
    /// Sent messages waiting to be looked at, one at a time (in order).
    let sent: WorkerQueue<Message>

    /// `refused` is told how many messages were turned away so far, each time one is (the queue was full).
    public init(
        store: any PushReads, chats: any ChatReads, visibility: any PageVisibility, queue: PushQueue, pathPrefix: String,
        words: @escaping @Sendable (Message) -> String, logger: Logger, refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.store = store
        self.chats = chats
        self.visibility = visibility
        self.queue = queue
        self.pathPrefix = pathPrefix
        self.words = words
        self.logger = logger
        sent = WorkerQueue(high: 10_000, concurrency: 1, refused: refused)
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        guard case .message(.sent(let message, _)) = event, message.notice == nil else { return }
        sent.submit(message)
    }

    /// Decides whom each sent message is pushed to, in order, until cancelled.
    public func run() async {
        await sent.run { [self] message in
            do { try await notify(message) } catch {
                logger.warning("could not decide whom to notify", metadata: ["message": "\(message.id)", "error": "\(error)"])
            }
        }
    }

    /// Returns once every message observed so far was looked at.
    public func settled() async { await sent.settled() }

    /// Queues the pushes of one message; answers how many.
    @discardableResult
    public func notify(_ message: Message) async throws -> Int {
        let recipients = try await store.pushRecipients(in: message.chatID, excluding: message.senderID)
        guard !recipients.isEmpty else { return 0 }
        let named = message.named
        let told = recipients.filter { recipient in
            guard !visibility.hasVisiblePage(recipient.subscription.userID) else { return false }
            switch recipient.involvement {
            case .everything: return true
            case .mentions, .hidden: return named.names(recipient.handle)
            case .nothing: return false
            }
        }
        logger.debug("push recipients", metadata: ["message": "\(message.id)", "subscribed": "\(recipients.count)", "told": "\(told.count)"])
        guard !told.isEmpty, let chat = try await chats.chat(message.chatID) else { return 0 }
        let sender: String
        if let feed = message.feed { sender = feed.source } else { sender = try await chats.user(message.senderID)?.displayName ?? "Someone" }
        var payloads: [Bool: [UInt8]] = [:]
        for recipient in told {
            let payload = payloads[recipient.isPrivate] ?? PushPayload.message(
                message, words: words(message), sender: sender, chat: chat, isPrivate: recipient.isPrivate, pathPrefix: pathPrefix
            ).encoded
            payloads[recipient.isPrivate] = payload
            // A mention or a direct message is worth waking a phone for; the rest of a busy room is not.
            let urgent = chat.kind == .direct || named.names(recipient.handle)
            queue.enqueue(PushQueue.Job(payload: payload, subscription: recipient.subscription, urgency: urgent ? "high" : "normal"))
        }
        return told.count
    }
}
