import ParlorDomain
import Synchronization

/// At most one "started typing" per person and chat every ``Typing/startInterval`` (less a little, for the page's
/// timer and the network): a script that sends more (or a person with two tabs) is refused, and costs a lookup.
/// Forgets a person's chat when they stop, and everything older than the interval once it holds many.
final class TypingThrottle: Sendable {
    private struct Key: Hashable {
        let user: UserID
        let chat: ChatID
    }

    /// What a page's timer and the network may take off the interval.
    static let slack: Duration = .milliseconds(500)
    /// Past this many people typing at once, the old entries are swept.
    static let sweepAt = 10_000
    private let starts = Mutex<[Key: ContinuousClock.Instant]>([:])

    /// Whether a "start" now is allowed; if so, it is noted.
    func admit(_ user: UserID, in chat: ChatID, now: ContinuousClock.Instant = .now) -> Bool {
        let key = Key(user: user, chat: chat)
        return starts.withLock { starts in
            if let last = starts[key], now - last < Typing.startInterval - Self.slack { return false }
            if starts.count >= Self.sweepAt { starts = starts.filter { now - $0.value < Typing.startInterval } }
            starts[key] = now
            return true
        }
    }

    func forget(_ user: UserID, in chat: ChatID) {
        _ = starts.withLock { $0.removeValue(forKey: Key(user: user, chat: chat)) }
    }
}
