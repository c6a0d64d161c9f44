import ParlorDomain
import Testing

/// What a key may do whatever the order and spacing of its requests, on instants the test gives.
@Suite struct RateBudgetTests {
    let start = ContinuousClock.now

    @Test func aBurstIsSpentThenOneMoreIsEarnedEachInterval() {
        let budget = RateBudget<Int>(Rate(burst: 2, every: .seconds(1)))
        #expect(budget.spend(1, now: start) == nil && budget.spend(1, now: start) == nil)
        #expect(budget.spend(1, now: start) == .seconds(1), "empty: a whole interval to wait")
        #expect(budget.spend(1, now: start + .milliseconds(500)) == .milliseconds(500), "a refusal spends nothing")
        #expect(budget.spend(1, now: start + .seconds(1)) == nil)
        #expect(budget.spend(1, now: start + .seconds(1)) != nil)
        #expect(budget.spend(2, now: start) == nil, "every key has its own")
        // Long unused, it is full again, never more.
        #expect(budget.spend(1, now: start + .seconds(3600)) == nil && budget.spend(1, now: start + .seconds(3600)) == nil)
        #expect(budget.spend(1, now: start + .seconds(3600)) != nil)
    }

    @Test func requestsCloserTogetherThanAThousandthOfAnIntervalStillEarnTheNextOne() throws {
        let budget = RateBudget<Int>(Rate(burst: 1, every: .seconds(1)))
        #expect(budget.spend(7, now: start) == nil)
        var allowedAt: Duration?
        for step in 1...3_000 where allowedAt == nil {
            let at = Duration.microseconds(400 * step)
            if budget.spend(7, now: start + at) == nil { allowedAt = at }
        }
        let at = try #require(allowedAt, "never refilled under a steady stream of requests")
        #expect(at >= .seconds(1) && at <= .milliseconds(1_001), "\(at)")
    }

    @Test func aMinutesWorthIsABurstOfThatManyAndRetryAfterIsWholeSeconds() throws {
        let budget = RateBudget<String>(.perMinute(3))
        for _ in 0..<3 { #expect(budget.spend("key", now: start) == nil) }
        let wait = try #require(budget.spend("key", now: start))
        #expect(wait == .seconds(20) && wait.wholeSecondsUp == 20)
        #expect(Duration.milliseconds(1).wholeSecondsUp == 1 && Duration.zero.wholeSecondsUp == 1 && Duration.milliseconds(2_001).wholeSecondsUp == 3)
    }

    @Test func manyKeysAreSweptOnceTheirBudgetIsFullAgain() {
        let budget = RateBudget<Int>(Rate(burst: 1, every: .seconds(1)), sweepAt: 100)
        for key in 0..<100 { #expect(budget.spend(key, now: start) == nil) }
        // Later, a new key sweeps those that are full again; the one spent just before keeps its refusal.
        #expect(budget.spend(1_000, now: start + .seconds(5)) == nil)
        #expect(budget.spend(1_000, now: start + .seconds(5)) != nil)
        #expect(budget.spend(0, now: start + .seconds(5)) == nil, "a swept key starts full, as it would have been")
    }
}
