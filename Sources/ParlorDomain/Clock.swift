import Foundation
import Synchronization

/// Where "now" comes from. Injected everywhere a time is stamped or formatted, so tests and snapshots
/// get the same bytes every run.
public protocol WallClock: Sendable {
    var now: Date { get }
}

/// The machine's clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}

/// A clock that moves only when told to; for tests and fixtures.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date) { current = Mutex(start) }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// Sets the clock.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}
