import Foundation
import Synchronization

/// Slows down password guessing: after too many failed sign-ins for one account, or from one address,
/// within a window, further attempts are refused until the oldest failure leaves the window. A success
/// clears the account's failures. Kept in memory: a restart forgives, which costs an attacker a restart.
public final class SignInThrottle: Sendable {
    public struct Limits: Sendable {
        public var perAccount: Int
        public var perAddress: Int
        public var window: TimeInterval

        public init(perAccount: Int = 5, perAddress: Int = 20, window: TimeInterval = 15 * 60) {
            self.perAccount = perAccount
            self.perAddress = perAddress
            self.window = window
        }
    }

    private struct State {
        var byAccount: [String: [Date]] = [:]
        var byAddress: [String: [Date]] = [:]
    }

    private let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// How long until `handle` may try again from `address`; nil when it may try now.
    public func wait(handle: String, address: String, now: Date) -> TimeInterval? {
        state.withLock { state in
            let account = Self.recent(&state.byAccount, handle.lowercased(), now: now, window: limits.window)
            let fromAddress = Self.recent(&state.byAddress, address, now: now, window: limits.window)
            var wait: TimeInterval?
            if account.count >= limits.perAccount, let oldest = account.first { wait = oldest.addingTimeInterval(limits.window).timeIntervalSince(now) }
            if fromAddress.count >= limits.perAddress, let oldest = fromAddress.first {
                wait = max(wait ?? 0, oldest.addingTimeInterval(limits.window).timeIntervalSince(now))
            }
            return wait
        }
    }

    public func recordFailure(handle: String, address: String, now: Date) {
        state.withLock { state in
            state.byAccount[handle.lowercased(), default: []].append(now)
            state.byAddress[address, default: []].append(now)
        }
    }

    public func recordSuccess(handle: String) {
        _ = state.withLock { $0.byAccount.removeValue(forKey: handle.lowercased()) }
    }

    /// The failures of `key` still inside the window, dropping older ones (and the key when none is left).
    private static func recent(_ table: inout [String: [Date]], _ key: String, now: Date, window: TimeInterval) -> [Date] {
        guard var dates = table[key] else { return [] }
        dates.removeAll { now.timeIntervalSince($0) >= window }
        table[key] = dates.isEmpty ? nil : dates
        return dates
    }
}
