import ParlorDomain
import Synchronization

/// What one lane of the live pages does, one item after another: apply a published event of its chats,
/// register a page (its open chat's first state is read between two of that chat's events, never during
/// one), or meet the other lanes at a barrier (work that touches every chat, and "everything before is done").
enum LiveWork: Sendable {
    case event(PublishedEvent)
    case register(any Listener, PageSubscription, CheckedContinuation<ListenerRegistration, any Error>)
    case barrier(LaneBarrier)
}

/// The queue in front of one lane of the live pages: producers on any thread add work; the one consumer takes
/// everything waiting at once, so a burst is handled as a batch. It counts the events not yet applied, so
/// that those who make them can wait while the pages are far behind (``room()``).
final class LiveWorkQueue: Sendable {
    private struct State {
        var items: [LiveWork] = []
        var sleeper: CheckedContinuation<[LiveWork]?, Never>?
        var finished = false
        /// Events pushed and not yet applied.
        var behind = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Events the pages may be behind before ``room()`` waits; it waits until they are half as far.
    let limit: Int

    init(limit: Int = 1_000) {
        self.limit = limit
    }

    /// Returns when the live pages are fewer than ``limit`` events behind (at once, mostly).
    func room() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.behind < limit || state.finished { return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Sources waiting in ``room()`` (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// `count` events taken by the consumer are applied.
    func applied(_ count: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.behind -= count
            guard state.behind <= limit / 2 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in ready { waiter.resume() }
    }

    /// Adds work; false once the queue has finished (the work is then not done).
    @discardableResult
    func push(_ work: LiveWork) -> Bool {
        let outcome = state.withLock { state -> (accepted: Bool, wake: CheckedContinuation<[LiveWork]?, Never>?) in
            guard !state.finished else { return (false, nil) }
            if work.counts { state.behind += 1 }
            if let sleeper = state.sleeper {
                state.sleeper = nil
                return (true, sleeper)
            }
            state.items.append(work)
            return (true, nil)
        }
        outcome.wake?.resume(returning: [work])
        return outcome.accepted
    }

    /// Everything waiting now, without waiting: empty when nothing is.
    func takeReady() -> [LiveWork] {
        state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
    }

    /// Everything waiting, after waiting for at least one item; nil once finished and empty.
    func takeAll() async -> [LiveWork]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[LiveWork]?, Never>) in
                let ready = state.withLock { state -> [LiveWork]?? in
                    if !state.items.isEmpty {
                        defer { state.items = [] }
                        return .some(state.items)
                    }
                    if state.finished { return .some(nil) }
                    precondition(state.sleeper == nil, "live work has one consumer")
                    state.sleeper = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// No more work is accepted; the consumer gets what is left, then nil.
    func finish() {
        let (sleeper, waiting) = state.withLock { state in
            state.finished = true
            defer {
                state.sleeper = nil
                state.waiting = []
            }
            return (state.sleeper, state.waiting)
        }
        sleeper?.resume(returning: nil)
        for waiter in waiting { waiter.resume() }
    }
}

extension LiveWork {
    /// Whether the item is a published event (not a page's registration or a barrier).
    var isEvent: Bool {
        if case .event = self { return true }
        return false
    }

    /// Whether the item is an event the lane is behind by (a barrier counts: it holds every lane).
    var counts: Bool {
        switch self {
        case .event, .barrier: true
        case .register: false
        }
    }
}
