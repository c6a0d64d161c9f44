import Foundation
import Testing
@testable import ParlorWeb

/// Tokens are URL-safe base64 without padding, as Foundation's encoder with the RFC 4648 alphabet gives.
@Suite struct TokenTests {
    @Test func base64URLByHandMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let foundation = Data(bytes).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                #expect(Sodium.base64URL(bytes) == foundation, "\(bytes)")
            }
        }
        #expect(Sodium.randomToken().utf8.count == 43)
        #expect(Sodium.randomToken(bytes: 16).utf8.count == 22)
        #expect(Sodium.base64URL([0xFB, 0xFF]) == "-_8")
    }
}
