import Foundation
import ParlorDomain
import Synchronization

/// Slows down password guessing: after too many failed sign-ins for one account, or from one address,
/// within a window, further attempts are refused until the oldest failure leaves the window. A success
/// clears the account's failures. Kept in memory on a single instance (a restart forgives, which costs an
/// attacker a restart), in the shared database when several instances serve (``SignInFailureStore``).
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

    /// What a person is told when failures cannot be counted, so nothing is checked.
    static let unavailableMessage = "Signing in is not possible for a moment. Please try again in a few seconds."

    private let limits: Limits
    private let state = Mutex(State())
    private let shared: (any SignInFailureStore)?

    /// `shared`: where failures are kept when several instances serve; nil keeps them in this process.
    public init(limits: Limits = Limits(), shared: (any SignInFailureStore)? = nil) {
        self.limits = limits
        self.shared = shared
    }

    /// How long until `handle` may try again from `address`; nil when it may try now. Throws when the shared
    /// store cannot be read: the caller refuses the attempt (503), so guesses are never let through uncounted.
    public func wait(handle: String, address: String, now: Date) async throws -> TimeInterval? {
        let account: [Date], fromAddress: [Date]
        if let shared {
            let keys = Self.keys(handle: handle, address: address)
            let failures = try await shared.signInFailures(of: [keys.account, keys.address], since: now.addingTimeInterval(-limits.window))
            (account, fromAddress) = (failures[keys.account] ?? [], failures[keys.address] ?? [])
        } else {
            (account, fromAddress) = state.withLock { state in
                (
                    Self.recent(&state.byAccount, handle.lowercased(), now: now, window: limits.window),
                    Self.recent(&state.byAddress, address, now: now, window: limits.window)
                )
            }
        }
        var wait: TimeInterval?
        if account.count >= limits.perAccount, let oldest = account.first { wait = oldest.addingTimeInterval(limits.window).timeIntervalSince(now) }
        if fromAddress.count >= limits.perAddress, let oldest = fromAddress.first {
            wait = max(wait ?? 0, oldest.addingTimeInterval(limits.window).timeIntervalSince(now))
        }
        return wait
    }

    /// Counts a failed attempt. Throws when the shared store cannot record it: the caller then refuses the
    /// attempt with 503 rather than answer a guess that was not counted.
    public func recordFailure(handle: String, address: String, now: Date) async throws {
        if let shared {
            let keys = Self.keys(handle: handle, address: address)
            try await shared.recordSignInFailure(keys: [keys.account, keys.address], at: now, forgetting: now.addingTimeInterval(-limits.window))
            return
        }
        state.withLock { state in
            state.byAccount[handle.lowercased(), default: []].append(now)
            state.byAddress[address, default: []].append(now)
        }
    }

    /// Forgets the account's failures. Throws when the shared store cannot: the person is signed in all the
    /// same (their old failures only age out instead), and the caller logs and counts it.
    public func recordSuccess(handle: String) async throws {
        if let shared {
            try await shared.forgetSignInFailures(of: Self.keys(handle: handle, address: "").account)
            return
        }
        _ = state.withLock { $0.byAccount.removeValue(forKey: handle.lowercased()) }
    }

    private static func keys(handle: String, address: String) -> (account: String, address: String) {
        ("account:" + handle.lowercased(), "address:" + address)
    }

    /// The failures of `key` still inside the window, dropping older ones (and the key when none is left).
    private static func recent(_ table: inout [String: [Date]], _ key: String, now: Date, window: TimeInterval) -> [Date] {
        guard var dates = table[key] else { return [] }
        dates.removeAll { now.timeIntervalSince($0) >= window }
        table[key] = dates.isEmpty ? nil : dates
        return dates
    }
}
