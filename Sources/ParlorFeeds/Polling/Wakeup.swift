import Clocks
import Synchronization

/// A signal one waiter sleeps on with a time limit: the poller waits for its next round, and is woken
/// early when a subscription is added or a retry asked for. A signal with nobody waiting is kept for the
/// next wait.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let clock: AnyClock<Duration>

    /// `clock` times the waits.
    init(clock: AnyClock<Duration>) {
        self.clock = clock
    }

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after `duration`, on a signal, or when cancelled, whichever comes first.
    func wait(for duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [clock] in try? await clock.sleep(for: duration) }
            group.addTask { await self.signalled() }
            await group.next()
            group.cancelAll()
        }
    }

    private func signalled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
