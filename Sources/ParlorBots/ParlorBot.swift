import Foundation
import Logging
import ParlorDomain
import Synchronization

/// Parlor Bot: a member anyone can chat with, and the example of an event source outside the core.
/// It greets every new person in a chat of its own, marks each message read after a pause and answers
/// after another, all through the same events a person's browser sends.
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
    /// Read only, to ignore chats the bot is not in; every change goes through the router.
    private let store: any ChatStore
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

    /// What the bot answers in a chat: everything in its direct chats, what mentions it in its rooms.
    enum Ear: Sendable {
        case everything
        case mentions
        case nothing
    }

    final class Listening: Sendable {
        private let known = Mutex<[ChatID: Ear]>([:])
        static let limit = 100_000

        func callAsFunction(_ bot: UserID, in chat: ChatID, of store: any ChatStore) async throws -> Ear {
            if let answer = known.withLock({ $0[chat] }) { return answer }
            guard let stored = try await store.chat(chat) else { return .nothing }
            let answer: Ear = !stored.hasMember(bot) ? .nothing : stored.kind == .direct ? .everything : .mentions
            known.withLock { known in
                if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
                known[chat] = answer
            }
            return answer
        }
    }

    /// Most observed work that may wait for ``run()``; past it the newest is dropped and counted as a failure.
    static let inboxLimit = 10_000

    private init(user: User, readDelay: Duration, replyDelay: Duration, clock: any WallClock, store: any ChatStore, logger: Logger) {
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
        router: any EventSink, store: any ChatStore, clock: any WallClock,
        readDelay: Duration = .seconds(1), replyDelay: Duration = .seconds(2), logger: Logger = Logger(label: "parlor.bot")
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
        let bot = ParlorBot(user: user, readDelay: readDelay, replyDelay: replyDelay, clock: clock, store: store, logger: logger)
        router.addObserver(bot)
        return bot
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        switch event {
        case .user(.signedUp(let person)) where !person.isBot:
            take(.welcome(person, router: router))
        case .message(.sent(let message, _)) where message.senderID != user.id && message.feed == nil:
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

    /// What the router answered instead of what the bot asked for.
    struct Unexpected: Error, CustomStringConvertible {
        let outcome: String
        var description: String { "the router answered \(outcome)" }
    }

    private func welcome(_ person: User, router: any EventSink) async throws {
        let chat: ChatID
        let outcome = await router.send(.creating(creator: user.id, contactHandle: person.handle))
        switch outcome {
        case .created(let created): chat = created.id
        case .createFailed(_, .chatExists(let existing)): chat = existing
        default: throw Unexpected(outcome: "\(outcome)")
        }
        let sent = await router.send(.sending(OutgoingMessage(
            chatID: chat, senderID: user.id,
            body: "Welcome to Parlor, \(person.displayName)! I am Parlor Bot. Write me anything: I read it, and I answer.",
            token: "bot-welcome-\(person.id)", createdAt: clock.now
        )))
        guard case .sent = sent else { throw Unexpected(outcome: "\(sent)") }
    }

    private func answer(_ message: Message, router: any EventSink) async throws {
        switch try await listening(user.id, in: message.chatID, of: store) {
        case .everything: break
        case .mentions: guard Mentions.handles(in: message.body).contains(user.handle.lowercased()) else { return }
        case .nothing: return
        }
        try await Task.sleep(for: readDelay)
        let read = await router.send(.userReads(ReadReport(chatID: message.chatID, readerID: user.id, upTo: message.id)))
        // The mark did not move (a later message was read first, or this one is gone): nothing to answer.
        guard case .userRead = read else { return }
        try await Task.sleep(for: replyDelay)
        let sent = await router.send(.sending(OutgoingMessage(
            chatID: message.chatID, senderID: user.id, body: Self.reply(to: message.body), replyTo: message.id,
            token: "bot-reply-\(message.id)", createdAt: clock.now
        )))
        guard case .sent = sent else { throw Unexpected(outcome: "\(sent)") }
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
