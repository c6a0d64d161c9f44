/// How long a test waits for something before it gives up: a bound, not a speed.
///
/// When the whole suite starts at once on two cores, the cooperative pool can be busy with other tests for tens of
/// seconds, and the tasks that would answer a waiting test are held back as long as its own checks are. So the bound
/// counts checks as well as time: it is spent when `bound` has passed and as many checks were made as a quarter of
/// that time would make, or in any case after three times the bound. A quiet machine gives up after `bound`.
public struct WaitBound {
    private let start = ContinuousClock.now
    private let bound: Duration
    private let fewestChecks: Int
    private var checks = 0

    /// `interval`: how often the waiting loop checks.
    public init(_ bound: Duration, checkingEvery interval: Duration) {
        self.bound = bound
        fewestChecks = max(1, Int(bound / interval) / 4)
    }

    /// Counts one check made in vain; answers whether the wait is over.
    public mutating func isSpent() -> Bool {
        checks += 1
        let waited = ContinuousClock.now - start
        return waited >= bound * 3 || (waited >= bound && checks >= fewestChecks)
    }
}
