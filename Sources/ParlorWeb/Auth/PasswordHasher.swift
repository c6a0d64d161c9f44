import BoundedWork
import CSodium
import Dispatch
import Foundation

/// Argon2id password hashes through libsodium's `crypto_pwhash_str`, by default at its "interactive" cost
/// (64 MiB, two passes): 0.1–0.3 s per sign-in here, slow enough to make guessing expensive.
public struct PasswordHasher: Sendable {
    /// Longer ones are refused too: hashing megabytes on request would be an easy way to tie up the server.
    public static let maximumLength = 256
    /// What a person is told when every hashing thread is taken and the waiting line is full.
    static let busyMessage = "Parlor is busy signing people in. Please try again in a few seconds."

    /// How much work and memory one hash takes. Every cost is Argon2id and verifies every other's hashes.
    public enum Cost: Sendable {
        /// libsodium's interactive limits: 64 MiB, two passes. What people's passwords get.
        case interactive
        /// libsodium's moderate limits: 256 MiB, three passes, about four times the interactive work. For
        /// operators who can spare the memory per sign-in.
        case moderate
        /// libsodium's minimum: 8 KiB, one pass. For test suites that create hundreds of accounts on a
        /// shared machine, where the interactive cost would pin every core for the whole run.
        case minimum
    }

    private let opsLimit: UInt64
    private let memLimit: Int
    private let queue: BoundedWorkQueue

    /// Hashes at `cost`, on at most `concurrency` threads (default: one per core), with at most
    /// `waitingLimit` more hashes waiting (default: 16 per thread); past that ``hashed(_:)`` and
    /// ``verified(_:against:)`` throw ``PasswordError/busy``.
    public init(cost: Cost = .interactive, concurrency: Int? = nil, waitingLimit: Int? = nil) {
        let threads = concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        queue = BoundedWorkQueue(label: "parlor.passwords", concurrency: threads, waitingLimit: waitingLimit ?? 16 * max(1, threads))
        Sodium.ready()
        switch cost {
        case .interactive:
            opsLimit = UInt64(crypto_pwhash_opslimit_interactive())
            memLimit = crypto_pwhash_memlimit_interactive()
        case .moderate:
            opsLimit = UInt64(crypto_pwhash_opslimit_moderate())
            memLimit = crypto_pwhash_memlimit_moderate()
        case .minimum:
            opsLimit = UInt64(crypto_pwhash_opslimit_min())
            memLimit = crypto_pwhash_memlimit_min()
        }
    }

    /// The hash to store, in the PHC string format (`$argon2id$v=19$m=65536,t=2,p=1$...`).
    public func hash(_ password: String) throws(PasswordError) -> String {
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let result = Self.withPassword(password) { pointer, length in
            crypto_pwhash_str(&output, pointer, length, opsLimit, memLimit)
        }
        // Fails only when the memory for the hash cannot be had.
        guard result == 0 else { throw .outOfMemory }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `hash`; false for a malformed hash.
    public func verify(_ password: String, against hash: String) -> Bool {
        Self.withPassword(password) { pointer, length in
            crypto_pwhash_str_verify(hash, pointer, length) == 0
        }
    }

    /// The password's UTF-8 bytes and their count (a NUL inside is part of the password, not its end).
    private static func withPassword<Result>(_ password: String, _ body: (UnsafePointer<CChar>, UInt64) -> Result) -> Result {
        var bytes = Array(password.utf8)
        let count = UInt64(bytes.count)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!, count) }
        }
    }

    /// ``hash(_:)`` away from the request threads. Throws ``PasswordError/busy`` at once when too many
    /// hashes are waiting already.
    public func hashed(_ password: String) async throws(PasswordError) -> String {
        guard let result = await queue.run({ Result { () throws(PasswordError) in try hash(password) } }) else { throw .busy }
        return try result.get()
    }

    /// ``verify(_:against:)`` away from the request threads. Throws ``PasswordError/busy`` at once when too
    /// many hashes are waiting already.
    public func verified(_ password: String, against hash: String) async throws(PasswordError) -> Bool {
        guard let matches = await queue.run({ verify(password, against: hash) }) else { throw .busy }
        return matches
    }
}

public enum PasswordError: Error, Sendable {
    case outOfMemory
    /// Too many sign-ins are waiting for their hash; try again in a moment.
    case busy
}
