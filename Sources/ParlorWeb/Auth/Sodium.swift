import CSodium
import Foundation

/// libsodium's start-up, random bytes, hashing and constant-time comparison.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Initialises libsodium once (safe from any thread).
    static func ready() {
        precondition(initialised, "libsodium could not be initialised")
    }

    /// `count` random bytes from the system's generator, as URL-safe base64 without padding.
    static func randomToken(bytes count: Int = 32) -> String {
        ready()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// BLAKE2b-256 of `text`, in hex: how a session id is stored.
    static func hash(_ text: String) -> String {
        ready()
        var output = [UInt8](repeating: 0, count: 32)
        let input = Array(text.utf8)
        crypto_generichash(&output, output.count, input, UInt64(input.count), nil, 0)
        // Hex by hand: String(format:) went through Foundation's formatter for every byte of every request.
        let digits = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        for byte in output {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Whether two strings are equal, in a time that depends on their length only.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count, !left.isEmpty else { return false }
        return sodium_memcmp(left, right, left.count) == 0
    }
}
