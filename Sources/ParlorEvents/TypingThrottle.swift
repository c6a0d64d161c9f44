import ParlorDomain
import Synchronization

/// At most one "started typing" per person and chat every ``Typing/startInterval`` (less a little, for the page's
/// timer and the network): a script that sends more (or a person with two tabs) is refused. A "stop" leaves the
/// clock as it is (a stop before each start would otherwise let every start through); a sent message forgets it,
/// as the next keystroke starts a new one. Beside that, every report of one person, start or stop, in any chat,
/// comes out of one budget (``reportRate``), so no order of them broadcasts more than that. Forgets everything
/// older than the interval once it holds many.
final class TypingThrottle: Sendable {
    private struct Key: Hashable {
        let user: UserID
        let chat: ChatID
    }

    /// What a page's timer and the network may take off the interval.
    static let slack: Duration = .milliseconds(500)
    /// Past this many people typing at once, the old entries are swept.
    static let sweepAt = 10_000
    /// Every typing report of one person: a few at once, two a second after that.
    static let reportRate = Rate(burst: 4, every: .milliseconds(500))
    private let starts = Mutex<[Key: ContinuousClock.Instant]>([:])
    private let reports = RateBudget<UserID>(reportRate)

    /// Whether a report of `user` (start or stop) is within their budget; if so, it is spent.
    func admitReport(_ user: UserID, now: ContinuousClock.Instant = .now) -> Bool {
        reports.spend(user, now: now) == nil
    }

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

    /// The person sent a message in the chat: their next keystroke starts anew.
    func forget(_ user: UserID, in chat: ChatID) {
        _ = starts.withLock { $0.removeValue(forKey: Key(user: user, chat: chat)) }
    }
}
