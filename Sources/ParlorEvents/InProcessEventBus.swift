import ParlorDomain
import Synchronization

/// The bus of a single Parlor instance: each event goes straight from the router to this instance's live
/// pages (and whatever else of the instance subscribed: the streams' session checks, presence), queued in the
/// order the publishers reached it. Events published before anyone subscribed wait for the first receiver.
public final class InProcessEventBus: EventBus {
    private struct State {
        var receivers: [@Sendable (PublishedEvent) -> Void] = []
        var early: [PublishedEvent] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func publish(_ event: PublishedEvent) {
        // Under the lock, so that the order receivers see is the order publishers got here.
        state.withLock { state in
            if state.receivers.isEmpty { state.early.append(event) }
            for receiver in state.receivers { receiver(event) }
        }
    }

    public func subscribe(_ receiver: @escaping @Sendable (PublishedEvent) -> Void) {
        state.withLock { state in
            for event in state.early { receiver(event) }
            state.early = []
            state.receivers.append(receiver)
        }
    }
}
