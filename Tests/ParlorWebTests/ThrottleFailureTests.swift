import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorWeb
import Synchronization
import Testing

/// When the sign-in throttle's shared store fails, guesses are refused, not let through uncounted.
@Suite struct ThrottleFailureTests {
    /// A shared store that works until `failing` is set, then throws on every call.
    final class FlakyFailureStore: SignInFailureStore {
        let failing = Atomic<Bool>(false)
        let recorded = Mutex<[String: [Date]]>([:])
        struct Down: Error {}

        func signInFailures(of keys: [String], since: Date) async throws -> [String: [Date]] {
            if failing.load(ordering: .relaxed) { throw Down() }
            return recorded.withLock { table in table.filter { keys.contains($0.key) }.mapValues { $0.filter { $0 >= since } } }
        }

        func recordSignInFailure(keys: [String], at date: Date, forgetting: Date) async throws {
            if failing.load(ordering: .relaxed) { throw Down() }
            recorded.withLock { table in for key in keys { table[key, default: []].append(date) } }
        }

        func forgetSignInFailures(of key: String) async throws {
            if failing.load(ordering: .relaxed) { throw Down() }
            _ = recorded.withLock { $0.removeValue(forKey: key) }
        }
    }

    @Test func aThrottleThatCannotReadOrRecordRefusesSignInWith503AndNothingElseChanges() async throws {
        let failures = FlakyFailureStore()
        let parlor = try await RunningParlor(signInFailures: failures)
        do {
            try await parlor.visitor().signUp("ana", password: "correct horse battery")
            let guesser = parlor.visitor()
            try await guesser.get("/signin")
            #expect(try await guesser.post("/signin", [("handle", "ana"), ("password", "wrong guess 1")]).status == 422)
            #expect(failures.recorded.withLock { $0["account:ana"]?.count } == 1, "counted while the store works")
            failures.failing.store(true, ordering: .relaxed)
            let guess = try await guesser.post("/signin", [("handle", "ana"), ("password", "wrong guess 2")])
            #expect(guess.status == 503 && guess.text.contains("Signing in is not possible for a moment"))
            #expect(guess.header("Retry-After") != nil)
            let right = try await guesser.post("/signin", [("handle", "ana"), ("password", "correct horse battery")])
            #expect(right.status == 503 && guesser.cookies["parlor_session"] == nil, "not even the right password gets through uncounted")
            failures.failing.store(false, ordering: .relaxed)
            let later = try await guesser.post("/signin", [("handle", "ana"), ("password", "correct horse battery")])
            #expect(later.status == 303, "back once the store answers")
            #expect(failures.recorded.withLock { $0["account:ana"] } == nil, "a success forgets the account's failures")
        } catch {
            await parlor.finish()
            throw error
        }
        await parlor.finish()
    }

    @Test func aThrottleThatCannotRecordAWrongCurrentPasswordRefusesThePasswordChange() async throws {
        let failures = FlakyFailureStore()
        let parlor = try await RunningParlor(signInFailures: failures)
        do {
            let ana = parlor.visitor()
            try await ana.signUp("ana", password: "correct horse battery")
            try await ana.get("/settings")
            failures.failing.store(true, ordering: .relaxed)
            let change = try await ana.post("/settings/password", [("currentPassword", "wrong"), ("newPassword", "a new long password")])
            #expect(change.status == 503 && change.text.contains("Signing in is not possible for a moment"))
        } catch {
            await parlor.finish()
            throw error
        }
        await parlor.finish()
    }
}
