import Crypto
import Foundation
import ParlorPush
import Testing

/// Web Push payload encryption against RFC 8291's worked example (§5 and Appendix A: the same keys and salt give
/// the same bytes), a round trip with a new key and salt each time, and the refusals of malformed subscriptions.
@Suite struct WebPushEncryptionTests {
    // RFC 8291 §5 / Appendix A.
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    static let header = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let record = "8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ"

    @Test func theWorkedExampleOfRFC8291GivesItsBytes() throws {
        let subscriber = try WebPushEncryption.Subscriber(p256dh: Self.receiverPublic, auth: Self.authSecret)
        let serverKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: #require(Base64URL.decode(Self.senderPrivate)))
        #expect(Base64URL.encode(serverKey.publicKey.x963Representation) == Self.senderPublic)
        let body = try WebPushEncryption.encrypt(Array(Self.plaintext.utf8), to: subscriber, serverKey: serverKey, salt: #require(Base64URL.decode(Self.salt)))
        #expect(Base64URL.encode(body.prefix(86)) == Self.header, "salt, record size 4096, the sender's key")
        #expect(Base64URL.encode(body.dropFirst(86)) == Self.record, "the one record")
        #expect(Base64URL.encode(body) == Self.body)

        // The browser's side: its private key opens it.
        let receiver = try P256.KeyAgreement.PrivateKey(rawRepresentation: #require(Base64URL.decode(Self.receiverPrivate)))
        let opened = try WebPushEncryption.decrypt(body, privateKey: receiver, authSecret: #require(Base64URL.decode(Self.authSecret)))
        #expect(String(decoding: opened, as: UTF8.self) == Self.plaintext)
    }

    @Test func eachMessageHasANewKeyAndSaltAndOnlyItsSubscriptionOpensIt() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let auth = WebPushEncryption.randomBytes(16)
        let subscriber = try WebPushEncryption.Subscriber(publicKey: Array(browser.publicKey.x963Representation), authSecret: auth)
        let text = Array(#"{"title":"Ana Lima in Launch","body":"Build is green"}"#.utf8)
        let first = try WebPushEncryption.encrypt(text, to: subscriber)
        let second = try WebPushEncryption.encrypt(text, to: subscriber)
        #expect(first != second && first.prefix(16) != second.prefix(16), "a new salt and key each time")
        #expect(try WebPushEncryption.decrypt(first, privateKey: browser, authSecret: auth) == text)
        #expect(throws: WebPushEncryption.Refusal.undecryptable) {
            try WebPushEncryption.decrypt(first, privateKey: P256.KeyAgreement.PrivateKey(), authSecret: auth)
        }
        #expect(throws: WebPushEncryption.Refusal.undecryptable) {
            try WebPushEncryption.decrypt(first, privateKey: browser, authSecret: WebPushEncryption.randomBytes(16))
        }
        var tampered = first
        tampered[100] ^= 1
        #expect(throws: WebPushEncryption.Refusal.undecryptable) { try WebPushEncryption.decrypt(tampered, privateKey: browser, authSecret: auth) }
        let longest = [UInt8](repeating: 0x41, count: WebPushEncryption.plaintextLimit)
        #expect(try WebPushEncryption.encrypt(longest, to: subscriber).count == WebPushEncryption.recordSize, "the longest fills a push service's 4096 bytes")
        #expect(throws: WebPushEncryption.Refusal.tooLong(limit: WebPushEncryption.plaintextLimit)) {
            try WebPushEncryption.encrypt(longest + [0x41], to: subscriber)
        }
    }

    @Test func malformedSubscriptionKeysAreRefused() throws {
        let good = Self.receiverPublic
        for (key, auth, refusal) in [
            ("", Self.authSecret, WebPushEncryption.Refusal.malformedKey),
            (String(good.dropLast(2)), Self.authSecret, .malformedKey),
            (String(repeating: "A", count: 87), Self.authSecret, .malformedKey),  // 65 zero bytes: not on the curve
            ("BC" + String(repeating: "A", count: 85), Self.authSecret, .malformedKey),
            (good + "=" + String(repeating: "A", count: 10_000), Self.authSecret, .malformedKey),
            ("not base64!", Self.authSecret, .malformedKey),
            (good, "AAAA", .malformedAuthSecret),
            (good, Self.authSecret + "AAAA", .malformedAuthSecret),
            (good, String(repeating: "A", count: 10_000), .malformedAuthSecret),
        ] {
            #expect(throws: refusal, "\(key.prefix(20)) \(auth.prefix(20))") { try WebPushEncryption.Subscriber(p256dh: key, auth: auth) }
        }
        #expect(Base64URL.decode("A") == nil && Base64URL.decode("ab+/") == nil && Base64URL.decode("YQ") == [0x61] && Base64URL.decode("YQ==") == [0x61])
    }

    @Test func vapidSignsAShortLivedTokenForTheEndpointsOrigin() throws {
        let vapid = VAPID(key: P256.Signing.PrivateKey(), subject: "mailto:admin@parlor.example")
        let expiry = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(VAPID.audience(of: URL(string: "https://push.example.net:8443/wpush/v2/abc?x=1")!) == "https://push.example.net:8443")
        #expect(VAPID.audience(of: URL(string: "ftp://push.example.net/x")!) == nil)
        let header = try vapid.authorization(audience: "https://push.example.net", expiry: expiry)
        let parts = header.split(separator: " ")
        #expect(parts.count == 3 && parts[0] == "vapid" && parts[2] == "k=\(vapid.publicKey)")
        let token = String(parts[1].dropFirst(2).dropLast())  // "t=" … ","
        let pieces = token.split(separator: ".").map(String.init)
        #expect(pieces.count == 3)
        let claims = try JSONSerialization.jsonObject(with: Data(#require(Base64URL.decode(pieces[1])))) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net" && claims?["exp"] as? Int == 1_795_000_000)
        #expect(claims?["sub"] as? String == "mailto:admin@parlor.example")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: #require(Base64URL.decode(pieces[2])))
        let publicKey = try P256.Signing.PublicKey(x963Representation: #require(Base64URL.decode(vapid.publicKey)))
        #expect(publicKey.isValidSignature(signature, for: Array((pieces[0] + "." + pieces[1]).utf8)), "ES256 over header.claims")
        #expect(!publicKey.isValidSignature(signature, for: Array((pieces[0] + "." + pieces[1] + "x").utf8)))
    }
}
