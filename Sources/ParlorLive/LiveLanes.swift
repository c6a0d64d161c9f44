import ParlorDomain
import Synchronization

/// The lanes of the live pages: each chat's events go to one lane, always the same, and are applied there
/// one after another in the order they were published; different chats' events are applied side by side
/// on as many lanes as there are. A page registers in the lane of its open chat (else of its viewer), so
/// its conversation starts between two of that chat's events. Work that touches every chat (a profile
/// change, pages to reload after lost events, "is everything before done?") is a barrier: every lane
/// finishes what came before it, one lane does the work, then all go on.
final class LiveLanes: Sendable {
    let queues: [LiveWorkQueue]

    /// `count` lanes (at least one), each letting its sources wait once it is `limit` events behind.
    init(count: Int, limit: Int = 1_000) {
        queues = (0..<max(1, count)).map { _ in LiveWorkQueue(limit: limit) }
    }

    var count: Int { queues.count }

    /// The lane of `chat`.
    func lane(of chat: ChatID) -> LiveWorkQueue { queues[Self.index(chat.rawValue, count: queues.count)] }

    /// The lane of a page without an open chat.
    func lane(of viewer: UserID) -> LiveWorkQueue { queues[Self.index(viewer.rawValue, count: queues.count)] }

    /// The lane a page registers in.
    func lane(of page: PageSubscription) -> LiveWorkQueue {
        if let chat = page.openChat ?? page.feedsOf { return lane(of: chat) }
        return lane(of: page.viewer)
    }

    /// Spreads ids over the lanes; any id (negative too) maps to a lane.
    static func index(_ id: Int64, count: Int) -> Int {
        Int(UInt64(bitPattern: id) % UInt64(count))
    }

    /// Holds every lane at `barrier`; false once the lanes have finished (then the barrier was abandoned).
    @discardableResult
    func pushEverywhere(_ barrier: LaneBarrier) -> Bool {
        var accepted = 0
        for queue in queues where queue.push(.barrier(barrier)) { accepted += 1 }
        guard accepted == queues.count else {
            barrier.abandon()
            return false
        }
        return true
    }

    /// Lets no more work in; each lane gets what it has, then stops.
    func finish() {
        for queue in queues { queue.finish() }
    }
}

/// Where every lane stops: the last lane to arrive runs the work, then all of them go on.
final class LaneBarrier: Sendable {
    private struct State {
        var arrived = 0
        var done = false
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Mutex(State())
    private let lanes: Int
    private let work: @Sendable () async -> Void
    /// Run instead of the work when the lanes stop before all of them arrive (shutting down).
    private let abandoned: @Sendable () -> Void

    init(lanes: Int, work: @escaping @Sendable () async -> Void, abandoned: @escaping @Sendable () -> Void = {}) {
        self.lanes = lanes
        self.work = work
        self.abandoned = abandoned
    }

    /// A lane arrives; returns once the work is done.
    func arrive() async {
        let last = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now = state.withLock { state -> Bool? in
                state.arrived += 1
                if state.done { return false }
                if state.arrived == lanes { return true }
                state.waiting.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        guard last else { return }
        await work()
        release(runningAbandoned: false)
    }

    /// The lanes stopped before all arrived: those waiting go on, the work is not done.
    func abandon() {
        release(runningAbandoned: true)
    }

    private func release(runningAbandoned: Bool) {
        let (waiting, first) = state.withLock { state in
            defer {
                state.waiting = []
                state.done = true
            }
            return (state.waiting, !state.done)
        }
        if runningAbandoned, first { abandoned() }
        for waiter in waiting { waiter.resume(returning: false) }
    }
}

/// Where the live pages apply an event.
enum Lane: Equatable {
    /// The lane of this chat, after the chat's earlier events.
    case chat(ChatID)
    /// Every lane at once (it may change what any chat shows).
    case everyChat
    /// Nowhere: the event changes nothing a page shows.
    case none
}

extension DomainEvent {
    /// The lane this event is applied in: what ``EventHandler/handle(_:)`` does something for.
    var lane: Lane {
        switch self {
        case .message(.sending(let outgoing)), .message(.failedSending(let outgoing, _)):
            .chat(outgoing.chatID)
        case .message(.sent(let message, _)), .message(.edited(let message)), .message(.deleted(let message)),
             .message(.photoProcessed(let message)), .message(.previewed(let message)):
            .chat(message.chatID)
        case .message(.userRead(let chat, _, _, _)):
            .chat(chat)
        case .message(.reacted(let reactions)):
            .chat(reactions.chatID)
        case .chat(.created(let chat)):
            .chat(chat.id)
        case .chat(.membersChanged(let change)), .chat(.roomRenamed(let change)):
            .chat(change.chat.id)
        case .chat(.involvementChanged(let membership)):
            .chat(membership.chatID)
        case .user(.profileUpdated), .user(.signedUp), .user(.accountChanged):
            .everyChat
        case .presence(.typing(let report)):
            .chat(report.chatID)
        case .presence(.presenceChanged(let report)):
            // One person's dots in order: the lane their number falls in.
            .chat(ChatID(report.userID.rawValue))
        case .feed(.subscribed(let subscription)), .feed(.unsubscribed(let subscription)), .feed(.retried(let subscription)),
             .feed(.checked(let subscription)):
            .chat(subscription.chatID)
        case .message(.editing), .message(.failedEditing), .message(.deleting), .message(.failedDeleting), .message(.userReads),
             .message(.reacting), .message(.failedReacting), .message(.previewing), .message(.removingPreview), .message(.failedRemovingPreview),
             .message(.processingPhoto), .chat(.creating), .chat(.creatingDirect), .chat(.creatingRoom), .chat(.createFailed), .chat(.changingMembers),
             .chat(.memberChangeFailed), .chat(.renamingRoom), .chat(.renameFailed), .chat(.changingInvolvement), .user(.signingUp),
             .user(.signUpFailed), .user(.updatingProfile), .user(.profileUpdateFailed), .user(.changingAccount),
             .user(.accountChangeFailed), .feed(.subscribing), .feed(.subscribeFailed),
             .feed(.unsubscribing), .feed(.retrying), .feed(.requestFailed), .feed(.checking), .presence(.reportingTyping), .presence(.typingRefused),
             .presence(.reportingPresence), .presence(.refreshingPresence), .presence(.presenceRefreshed), .account:
            .none
        }
    }
}
