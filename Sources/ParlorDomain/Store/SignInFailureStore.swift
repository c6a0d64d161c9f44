import Foundation

/// Failed sign-ins kept where several instances see them, so the sign-in throttle counts every attempt
/// whichever instance took it. Keys name an account or an address; a single instance keeps them in memory.
public protocol SignInFailureStore: Sendable {
    /// The failures of each key at `since` or later, oldest first; keys without any are left out.
    func signInFailures(of keys: [String], since: Date) async throws -> [String: [Date]]
    /// Records one failure under each key, and forgets failures older than `forgetting`.
    func recordSignInFailure(keys: [String], at date: Date, forgetting: Date) async throws
    /// Forgets the failures of `key` (a successful sign-in).
    func forgetSignInFailures(of key: String) async throws
}
