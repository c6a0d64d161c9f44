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
        return base64URL(bytes)
    }

    private static let base64URLDigits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// URL-safe base64 without padding (RFC 4648, section 5), by hand: Foundation's encoder and three
    /// `replacingOccurrences` cost more than the rest of a cached page view.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0...count { out.append(base64URLDigits[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// BLAKE2b-256 of `text`, in hex: how a session id is stored.
    static func hash(_ text: String) -> String { hash(bytes: Array(text.utf8)) }

    /// BLAKE2b-256 of `input`, in hex: how a session id is stored, and a media file named.
    static func hash(bytes input: [UInt8]) -> String {
        ready()
        var output = [UInt8](repeating: 0, count: 32)
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
