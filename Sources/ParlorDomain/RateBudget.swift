import Synchronization

/// How often something may happen for one key: up to ``burst`` at once, then one more each ``every``.
public struct Rate: Hashable, Sendable {
    public let burst: Int
    public let every: Duration

    /// `burst` is at least one and `every` at least a millisecond, whatever is given.
    public init(burst: Int, every: Duration) {
        self.burst = max(1, burst)
        self.every = max(every, .milliseconds(1))
    }

    /// `count` in a minute, all of them at once if need be.
    public static func perMinute(_ count: Int) -> Rate {
        let count = max(1, count)
        return Rate(burst: count, every: .seconds(60) / count)
    }
}

/// A budget per key (a person, a bot's key) that refills at a steady ``Rate`` (a token bucket): what a key may
/// do in a second or a minute whatever the order of its requests. Kept in memory, one per instance; keys whose
/// budget is full again are forgotten once many are held.
public final class RateBudget<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        /// What is left, in thousandths of one action (integers: no rounding drifts).
        var left: Int64
        var at: ContinuousClock.Instant
    }

    public let rate: Rate
    /// Past this many keys, those whose budget is full again are swept.
    let sweepAt: Int
    private let buckets = Mutex<[Key: Bucket]>([:])

    public init(_ rate: Rate, sweepAt: Int = 10_000) {
        self.rate = rate
        self.sweepAt = max(1, sweepAt)
    }

    /// Spends one action of `key`'s budget: nil when it was there, otherwise how long until it is (nothing spent).
    public func spend(_ key: Key, now: ContinuousClock.Instant = .now) -> Duration? {
        let full = Int64(rate.burst) * 1000
        return buckets.withLock { buckets in
            var bucket = buckets[key].map { refilled($0, now: now, full: full) } ?? Bucket(left: full, at: now)
            guard bucket.left >= 1000 else {
                return rate.every * Double(1000 - bucket.left) / 1000
            }
            bucket.left -= 1000
            if buckets[key] == nil, buckets.count >= sweepAt {
                buckets = buckets.filter { refilled($0.value, now: now, full: full).left < full }
            }
            buckets[key] = bucket
            return nil
        }
    }

    /// The bucket at `now`: what it earned since it was last credited, up to full. Only whole thousandths are
    /// credited, and the time they took: calls closer together than that still add up.
    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant, full: Int64) -> Bucket {
        guard now > bucket.at else { return bucket }
        let earned = (now - bucket.at) / rate.every
        // A budget untouched for longer than it takes to fill is full (and no product of large numbers is made).
        guard earned < Double(rate.burst) else { return Bucket(left: full, at: now) }
        let credited = Int64(earned * 1000)
        guard credited > 0 else { return bucket }
        guard bucket.left + credited < full else { return Bucket(left: full, at: now) }
        return Bucket(left: bucket.left + credited, at: bucket.at + rate.every * (Double(credited) / 1000))
    }
}

extension Duration {
    /// Whole seconds, rounded up and at least one: what `Retry-After` says.
    public var wholeSecondsUp: Int {
        let (seconds, attoseconds) = components
        return Int(max(1, attoseconds > 0 ? seconds + 1 : seconds))
    }
}
