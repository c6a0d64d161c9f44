import Foundation
import ParlorDomain
import Synchronization

/// Slows down password guessing without letting anyone lock anyone out. Failures are counted within a window for
/// an account from one address (the pair), for the account, and for the address:
/// - the pair: a few failures are free, then each further attempt waits a delay that doubles with every failure
///   (1 s, 2 s, 4 s … up to the window);
/// - the account, past a ceiling of failures from anywhere: an address that has failed for it waits the whole
///   window after its last failure; an address that has not is never slowed by the others' failures, so whoever
///   knows the password signs in from their own address however many guess elsewhere;
/// - the address, past its limit over every account (one address trying many accounts): it waits until its oldest
///   failure leaves the window.
///
/// A success forgets the pair's and the account's failures. Kept in memory on a single instance (a restart
/// forgives, which costs an attacker a restart), in the shared database when several instances serve
/// (``SignInFailureStore``).
public final class SignInThrottle: Sendable {
    public struct Limits: Sendable {
        /// Failures of the account from all addresses past which an address that failed waits the whole window.
        public var perAccount: Int
        /// Failures from one address, over all accounts, past which it waits.
        public var perAddress: Int
        /// Failures of one account from one address before any delay.
        public var freeFailures: Int
        /// The first delay; each further failure doubles it, up to the window.
        public var firstDelay: TimeInterval
        public var window: TimeInterval

        public init(perAccount: Int = 10, perAddress: Int = 20, freeFailures: Int = 3, firstDelay: TimeInterval = 1, window: TimeInterval = 15 * 60) {
            self.perAccount = perAccount
            self.perAddress = perAddress
            self.freeFailures = freeFailures
            self.firstDelay = firstDelay
            self.window = window
        }

        /// The wait after the last of `failures` failures of a pair: none while they are free, then doubling.
        func delay(after failures: Int) -> TimeInterval {
            guard failures >= max(1, freeFailures) else { return 0 }
            // The exponent is bounded before the power: 2^30 seconds is past any window.
            let doublings = min(failures - max(1, freeFailures), 30)
            return min(firstDelay * Double(1 << doublings), window)
        }
    }

    private struct Keys {
        let account: String
        let address: String
        let pair: String

        init(handle: String, address: String) {
            // A handle that is no handle still counts, cut short: the table's keys stay small whatever is typed.
            let handle = String(handle.lowercased().prefix(64))
            account = "account:" + handle
            self.address = "address:" + address
            pair = "pair:" + handle + " " + address
        }
    }

    /// What a person is told when failures cannot be counted, so nothing is checked.
    static let unavailableMessage = "Signing in is not possible for a moment. Please try again in a few seconds."
    /// Past this many keys in memory, those without a failure in the window are swept.
    static let sweepAt = 10_000

    private let limits: Limits
    private let failures = Mutex<[String: [Date]]>([:])
    private let shared: (any SignInFailureStore)?

    /// `shared`: where failures are kept when several instances serve; nil keeps them in this process.
    public init(limits: Limits = Limits(), shared: (any SignInFailureStore)? = nil) {
        self.limits = limits
        self.shared = shared
    }

    /// How long until `handle` may try again from `address`; nil when it may try now. Throws when the shared
    /// store cannot be read: the caller refuses the attempt (503), so guesses are never let through uncounted.
    public func wait(handle: String, address: String, now: Date) async throws -> TimeInterval? {
        let keys = Keys(handle: handle, address: address)
        let since = now.addingTimeInterval(-limits.window)
        let recent: [String: [Date]]
        if let shared {
            recent = try await shared.signInFailures(of: [keys.account, keys.address, keys.pair], since: since)
        } else {
            recent = failures.withLock { table in
                [keys.account, keys.address, keys.pair].reduce(into: [:]) { found, key in
                    guard var dates = table[key] else { return }
                    dates.removeAll { $0 < since }
                    table[key] = dates.isEmpty ? nil : dates
                    found[key] = dates
                }
            }
        }
        let pair = recent[keys.pair] ?? [], account = recent[keys.account] ?? [], fromAddress = recent[keys.address] ?? []
        var until: Date?
        if let last = pair.last {
            let delay = account.count >= limits.perAccount ? limits.window : limits.delay(after: pair.count)
            until = last.addingTimeInterval(delay)
        }
        if fromAddress.count >= limits.perAddress, let oldest = fromAddress.first {
            until = max(until ?? .distantPast, oldest.addingTimeInterval(limits.window))
        }
        guard let until, until > now else { return nil }
        return until.timeIntervalSince(now)
    }

    /// Counts a failed attempt. Throws when the shared store cannot record it: the caller then refuses the
    /// attempt with 503 rather than answer a guess that was not counted.
    public func recordFailure(handle: String, address: String, now: Date) async throws {
        let keys = Keys(handle: handle, address: address)
        if let shared {
            try await shared.recordSignInFailure(keys: [keys.account, keys.address, keys.pair], at: now, forgetting: now.addingTimeInterval(-limits.window))
            return
        }
        failures.withLock { table in
            if table.count >= Self.sweepAt {
                let since = now.addingTimeInterval(-limits.window)
                table = table.filter { ($0.value.last ?? .distantPast) >= since }
            }
            for key in [keys.account, keys.address, keys.pair] { table[key, default: []].append(now) }
        }
    }

    /// Forgets the account's failures and the pair's. Throws when the shared store cannot: the person is signed in
    /// all the same (their old failures only age out instead), and the caller logs and counts it.
    public func recordSuccess(handle: String, address: String) async throws {
        let keys = Keys(handle: handle, address: address)
        if let shared {
            try await shared.forgetSignInFailures(of: keys.account)
            try await shared.forgetSignInFailures(of: keys.pair)
            return
        }
        failures.withLock { table in
            table[keys.account] = nil
            table[keys.pair] = nil
        }
    }

    /// A wait as the sign-in page says it: "3 seconds", "1 minute", "15 minutes".
    public static func spoken(_ wait: TimeInterval) -> String {
        let seconds = max(1, Int(min(wait, 86_400).rounded(.up)))
        if seconds < 60 { return "\(seconds) second\(seconds == 1 ? "" : "s")" }
        let minutes = (seconds + 59) / 60
        return "\(minutes) minute\(minutes == 1 ? "" : "s")"
    }
}
