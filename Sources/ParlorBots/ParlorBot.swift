import Foundation
import Logging
import ParlorDomain
import Synchronization

/// Parlor Bot: a member anyone can chat with, and a bot like any other. It greets every new person in a chat of its
/// own, marks each message read after a pause and answers after another. It hears what a webhook would tell it
/// (``BotAudience``: everything in its direct chats, what names it in its rooms, never a bot's words) and acts through
/// the bot API's operations (``BotActions``), which check its membership at each step and go through the router.
/// Its account is a bot's, listed with the others; the key made with it is thrown away.
///
/// What it observes is queued and handled by ``run()``, which whoever serves runs for as long as it serves
/// (a service of the executable's group), so its work is part of the lifecycle: shutdown ends it, and its
/// failures are logged and counted (``failures``). ``handled(_:)`` awaits the work taken so far.
public final class ParlorBot: EventObserver, Sendable {
    /// The bot's handle; people find it as @parlor.
    public static let handle = "parlor"

    public let user: User
    public let readDelay: Duration
    public let replyDelay: Duration
    private let clock: any WallClock
    /// Read only, to learn who wrote and where; every change goes through ``BotActions``.
    private let store: any ChatReads
    private let logger: Logger
    /// How the bot listens in each chat it was asked about (every message sent anywhere asks; bounded:
    /// forgotten when full). Its own chats' members never change, and it is in every open room from the start.
    private let listening = Listening()
    /// What it observed and has yet to do, numbered from 1 in the order observed.
    private let inbox: AsyncStream<(number: Int, work: Work)>
    private let inboxInput: AsyncStream<(number: Int, work: Work)>.Continuation
    private let progress = Mutex(Progress())
    /// Work that went wrong (the store could not say who is in a chat, the router refused what the bot sent).
    public var failures: Int { progress.withLock { $0.failures } }
    /// Pieces of work taken on, and done (failed ones included): equal when the bot has nothing left to do.
    public var taken: Int { progress.withLock { $0.taken } }
    public var done: Int { progress.withLock { $0.doneInOrder + $0.doneAhead.count } }

    enum Work: Sendable {
        case welcome(User, router: any EventSink)
        case answer(Message, router: any EventSink)
    }

    private struct Progress {
        var taken = 0
        /// Numbers done, as a count from 1 with the ones done out of order kept apart.
        var doneInOrder = 0
        var doneAhead: Set<Int> = []
        var failures = 0
        var waiters: [(upTo: Int, waiter: CheckedContinuation<Void, Never>)] = []
    }

    /// Each chat as last read, when the bot is in it (nil when not), so a message sent anywhere costs no read: bounded
    /// (forgotten when full), and a chat is read again after a notice in it (someone added or taken out).
    final class Listening: Sendable {
        private let known = Mutex<[ChatID: Chat?]>([:])
        static let limit = 100_000

        func chat(_ id: ChatID, for bot: UserID, of store: any ChatReads) async throws -> Chat? {
            if let known = known.withLock({ $0[id] }) { return known }
            let stored = try await store.chat(id)
            let kept = stored?.hasMember(bot) == true ? stored : nil
            known.withLock { known in
                if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
                known[id] = .some(kept)
            }
            return kept
        }

        func forget(_ id: ChatID) {
            _ = known.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Most observed work that may wait for ``run()``; past it the newest is dropped and counted as a failure.
    static let inboxLimit = 10_000

    private init(user: User, readDelay: Duration, replyDelay: Duration, clock: any WallClock, store: any ChatReads, logger: Logger) {
        self.user = user
        self.readDelay = readDelay
        self.replyDelay = replyDelay
        self.clock = clock
        self.store = store
        self.logger = logger
        (inbox, inboxInput) = AsyncStream.makeStream(of: (number: Int, work: Work).self, bufferingPolicy: .bufferingOldest(Self.inboxLimit))
    }

    /// Finds the bot's account, creating it on first start, and starts observing `router`. Run ``run()`` to
    /// have it act on what it observes.
    public static func start(
        router: any EventSink, store: any ChatReads, clock: any WallClock,
        readDelay: Duration = .seconds(1), replyDelay: Duration = .seconds(2), logger: Logger = Logger(label: "parlor.bot")
    ) async throws -> ParlorBot {
        var user = try await store.user(handle: handle)
        if user == nil {
            // A bot's account like an administrator's bots, with the hash of a key nobody is given.
            let credential = BotCredential(keyHash: "unused-" + UUID().uuidString, webhookURL: nil)
            let created = await router.send(.signingUp(NewUser(handle: handle, displayName: "Parlor Bot", isBot: true, bot: credential)))
            switch created {
            case .signedUp(let bot): user = bot
            // Another instance starting at the same moment made it first.
            case .signUpFailed(_, .handleTaken):
                user = try await store.user(handle: handle)
                // Taken, yet nobody has it: an administrator deactivated Parlor Bot.
                if user == nil { throw Deactivated() }
            case .signUpFailed(_, let reason): throw reason
            default: break
            }
        }
        guard let user else { throw Refusal.unavailable }
        let bot = ParlorBot(user: user, readDelay: readDelay, replyDelay: replyDelay, clock: clock, store: store, logger: logger)
        router.addObserver(bot)
        return bot
    }

    /// An administrator deactivated Parlor Bot: it stays quiet (whoever serves goes on without it).
    public struct Deactivated: Error, CustomStringConvertible {
        public var description: String { "an administrator deactivated Parlor Bot" }
    }

    /// Whether the bot's account is active now (asked of the store before it acts): a deactivated bot does nothing,
    /// and takes up its work again once reactivated.
    private func isActive() async throws -> Bool {
        try await store.user(handle: user.handle) != nil
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        switch event {
        case .user(.signedUp(let person)) where !person.isBot:
            take(.welcome(person, router: router))
        case .message(.sent(let message, _)) where message.senderID != user.id && message.feed == nil:
            // A notice of someone added to or taken out of a room: read that room again when next asked.
            if message.notice != nil { listening.forget(message.chatID) }
            take(.answer(message, router: router))
        default:
            break
        }
    }

    private func take(_ work: Work) {
        let number = progress.withLock { progress in
            progress.taken += 1
            return progress.taken
        }
        if case .dropped = inboxInput.yield((number, work)) {
            logger.error("Parlor Bot is too far behind: an event was dropped", metadata: ["waiting": "\(Self.inboxLimit)"])
            finished(number, failed: true)
        }
    }

    /// Acts on what it observes, each piece of work on its own (an answer waits out its pauses without holding
    /// up the others), until cancelled: what is under way then ends where it is.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await (number, work) in inbox {
                group.addTask { [self] in
                    let failed = await perform(work)
                    finished(number, failed: failed)
                }
            }
        }
    }

    /// Returns once the first `count` pieces of work it took are done (at once when they are).
    public func handled(_ count: Int) async {
        await withCheckedContinuation { waiter in
            let now = progress.withLock { progress -> Bool in
                if progress.doneInOrder >= count { return true }
                progress.waiters.append((count, waiter))
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// Returns once everything it took so far is done.
    public func settled() async {
        await handled(progress.withLock { $0.taken })
    }

    private func finished(_ number: Int, failed: Bool) {
        let ready = progress.withLock { progress -> [CheckedContinuation<Void, Never>] in
            if failed { progress.failures += 1 }
            progress.doneAhead.insert(number)
            while progress.doneAhead.remove(progress.doneInOrder + 1) != nil { progress.doneInOrder += 1 }
            let done = progress.doneInOrder
            let ready = progress.waiters.filter { $0.upTo <= done }.map(\.waiter)
            progress.waiters.removeAll { $0.upTo <= done }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// Does one piece of work; true when it failed (logged here).
    private func perform(_ work: Work) async -> Bool {
        do {
            switch work {
            case .welcome(let person, let router): try await welcome(person, router: router)
            case .answer(let message, let router): try await answer(message, router: router)
            }
            return false
        } catch is CancellationError {
            return false
        } catch {
            logger.error("Parlor Bot could not do its work", metadata: ["error": "\(error)"])
            return true
        }
    }

    private func actions(_ router: any EventSink) -> BotActions {
        BotActions(bot: user, router: router, store: store, clock: clock)
    }

    private func welcome(_ person: User, router: any EventSink) async throws {
        guard try await isActive() else { return }
        let actions = actions(router)
        let chat = try await actions.directChat(with: person.handle)
        _ = try await actions.post(
            "Welcome to Parlor, \(person.displayName)! I am Parlor Bot. Write me anything: I read it, and I answer.",
            in: chat, token: "bot-welcome-\(person.id)"
        )
    }

    private func answer(_ message: Message, router: any EventSink) async throws {
        // Who wrote is read only for a message that may be for the bot.
        guard let chat = try await listening.chat(message.chatID, for: user.id, of: store), BotAudience.mayAddress(user, message, in: chat),
              let sender = try await store.user(message.senderID), BotAudience.isAddressed(user, by: message, from: sender, in: chat),
              try await isActive()
        else { return }
        let actions = actions(router)
        try await Task.sleep(for: readDelay)
        // The mark did not move (a later message was read first, or this one is gone), or the bot was taken out of the
        // room meanwhile: nothing to answer.
        do {
            guard try await actions.markRead(chat.id, upTo: message.id) else { return }
        } catch BotActions.Failure.noRoom {
            return
        }
        try await Task.sleep(for: replyDelay)
        _ = try await actions.post(Self.reply(to: message.body), in: chat.id, replyTo: message.id, token: "bot-reply-\(message.id)")
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
