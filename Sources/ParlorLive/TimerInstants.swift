import Clocks

/// The arithmetic of ``ContinuousClock/Instant`` for the instants of an injected clock, so what ages reads the same.
extension AnyClock.Instant where Duration == Swift.Duration {
    public static func + (instant: Self, duration: Swift.Duration) -> Self { instant.advanced(by: duration) }

    public static func - (later: Self, earlier: Self) -> Swift.Duration { earlier.duration(to: later) }
}
