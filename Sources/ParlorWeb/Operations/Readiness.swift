import Synchronization

/// Whether this instance should be sent new work: not once shutdown has begun, and not while the event bus
/// has lost other instances' events (a shared database's listener). `/readyz` asks; the HTTP service says
/// when draining starts.
public final class Readiness: Sendable {
    private let draining = Atomic<Bool>(false)
    /// Whether the event bus receives other instances' events; nil for a bus of this process alone.
    let busHealth: (@Sendable () -> Bool)?

    public init(busHealth: (@Sendable () -> Bool)? = nil) {
        self.busHealth = busHealth
    }

    /// Shutdown has begun: `/readyz` answers 503 from now on.
    public func startDraining() {
        draining.store(true, ordering: .releasing)
    }

    var isDraining: Bool { draining.load(ordering: .acquiring) }
}
