import ParlorDomain
import Synchronization

/// What the live pages do, one item after another: apply a published event, register a page (its first
/// state is read between two events, never during one), or tell a waiter that everything before it is done.
enum LiveWork: Sendable {
    case event(PublishedEvent)
    case register(any Listener, PageSubscription, CheckedContinuation<ListenerRegistration, any Error>)
    case settle(CheckedContinuation<Void, Never>)
}

/// The queue in front of the live pages: producers on any thread add work; the one consumer takes
/// everything waiting at once, so a burst is handled as a batch.
final class LiveWorkQueue: Sendable {
    private struct State {
        var items: [LiveWork] = []
        var sleeper: CheckedContinuation<[LiveWork]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Adds work; false once the queue has finished (the work is then not done).
    @discardableResult
    func push(_ work: LiveWork) -> Bool {
        let outcome = state.withLock { state -> (accepted: Bool, wake: CheckedContinuation<[LiveWork]?, Never>?) in
            guard !state.finished else { return (false, nil) }
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
        let sleeper = state.withLock { state -> CheckedContinuation<[LiveWork]?, Never>? in
            state.finished = true
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.resume(returning: nil)
    }
}
