import ParlorDomain
import Synchronization

/// The bus of a single Parlor instance: each event goes straight from the router to this instance's live
/// pages, queued in the order the publishers reached it. Events published before anyone subscribed wait.
public final class InProcessEventBus: EventBus {
    private struct State {
        var receiver: (@Sendable (PublishedEvent) -> Void)?
        var early: [PublishedEvent] = []
    }

    private let state = Mutex(State())

    public init() {}

    public func publish(_ event: PublishedEvent) {
        // Under the lock, so that the order receivers see is the order publishers got here.
        state.withLock { state in
            if let receiver = state.receiver { receiver(event) } else { state.early.append(event) }
        }
    }

    public func subscribe(_ receiver: @escaping @Sendable (PublishedEvent) -> Void) {
        state.withLock { state in
            precondition(state.receiver == nil, "an in-process bus has one receiver")
            for event in state.early { receiver(event) }
            state.early = []
            state.receiver = receiver
        }
    }
}
