import Crypto
import Foundation

/// A push message's body encrypted for one browser's subscription (RFC 8291, `aes128gcm` of RFC 8188): an ECDH
/// secret between a key of Parlor's made for this message and the subscription's key, mixed with the
/// subscription's authentication secret, gives the content key and nonce of one AES-128-GCM record.
public enum WebPushEncryption {
    /// What a browser gives with its subscription: its P-256 public key (65 bytes, uncompressed) and a 16-byte
    /// secret. Outside bytes: checked here, so a malformed key is refused before anything is stored or sent.
    public struct Subscriber: Hashable, Sendable {
        public let publicKey: [UInt8]
        public let authSecret: [UInt8]
        let key: P256.KeyAgreement.PublicKey

        public init(publicKey: [UInt8], authSecret: [UInt8]) throws(Refusal) {
            guard publicKey.count == 65, publicKey.first == 0x04 else { throw .malformedKey }
            guard authSecret.count == 16 else { throw .malformedAuthSecret }
            guard let key = try? P256.KeyAgreement.PublicKey(x963Representation: publicKey) else { throw .malformedKey }
            self.publicKey = publicKey
            self.authSecret = authSecret
            self.key = key
        }

        /// From the base64url strings a subscription's JSON carries (`keys.p256dh`, `keys.auth`).
        public init(p256dh: String, auth: String) throws(Refusal) {
            guard p256dh.utf8.count <= 100, let publicKey = Base64URL.decode(p256dh) else { throw .malformedKey }
            guard auth.utf8.count <= 32, let authSecret = Base64URL.decode(auth) else { throw .malformedAuthSecret }
            try self.init(publicKey: publicKey, authSecret: authSecret)
        }

        public static func == (lhs: Subscriber, rhs: Subscriber) -> Bool { lhs.publicKey == rhs.publicKey && lhs.authSecret == rhs.authSecret }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(publicKey)
            hasher.combine(authSecret)
        }
    }

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case malformedKey
        case malformedAuthSecret
        case tooLong(limit: Int)
        case undecryptable

        public var description: String {
            switch self {
            case .malformedKey: "The subscription's key is not a P-256 public key."
            case .malformedAuthSecret: "The subscription's authentication secret is not 16 bytes."
            case .tooLong(let limit): "A push message holds at most \(limit) bytes."
            case .undecryptable: "The message could not be decrypted."
            }
        }
    }

    /// The record size Parlor writes; one record holds the whole message.
    public static let recordSize = 4096
    /// The header: salt, record size, key id length, key id (the sender's 65-byte public key).
    static let headerLength = 16 + 4 + 1 + 65
    /// The longest message: the record less its delimiter and tag, and the header (push services take 4096 bytes).
    public static let plaintextLimit = recordSize - headerLength - 1 - 16

    /// The body to POST to the subscription's endpoint (`Content-Encoding: aes128gcm`). `serverKey` and `salt` are
    /// new for every message; they are parameters only so RFC 8291's worked example can be checked.
    public static func encrypt(
        _ plaintext: [UInt8], to subscriber: Subscriber, serverKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: [UInt8] = randomBytes(16)
    ) throws -> [UInt8] {
        guard plaintext.count <= plaintextLimit else { throw Refusal.tooLong(limit: plaintextLimit) }
        precondition(salt.count == 16, "a salt is 16 bytes")
        let serverPublic = Array(serverKey.publicKey.x963Representation)
        let secret = try serverKey.sharedSecretFromKeyAgreement(with: subscriber.key)
        let (key, nonce) = keyAndNonce(secret: secret, authSecret: subscriber.authSecret, receiver: subscriber.publicKey, sender: serverPublic, salt: salt)
        // One record, the last: the text, then the delimiter 0x02, no padding.
        let sealed = try AES.GCM.seal(plaintext + [0x02], using: key, nonce: AES.GCM.Nonce(data: nonce))
        var body = salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian, Array.init)
        body.append(UInt8(serverPublic.count))
        body += serverPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// What a browser does with a body: for the tests' push service, which holds the subscription's private key.
    public static func decrypt(_ body: [UInt8], privateKey: P256.KeyAgreement.PrivateKey, authSecret: [UInt8]) throws -> [UInt8] {
        guard body.count >= headerLength + 16 + 1, body[20] == 65 else { throw Refusal.undecryptable }
        let salt = Array(body[0..<16])
        let sender = Array(body[21..<86])
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: sender) else { throw Refusal.undecryptable }
        let secret = try privateKey.sharedSecretFromKeyAgreement(with: senderKey)
        let receiver = Array(privateKey.publicKey.x963Representation)
        let (key, nonce) = keyAndNonce(secret: secret, authSecret: authSecret, receiver: receiver, sender: sender, salt: salt)
        let record = body[86...]
        guard let box = try? AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16)),
              var padded = try? Array(AES.GCM.open(box, using: key))
        else { throw Refusal.undecryptable }
        // Padding zeros, then the last record's delimiter.
        while padded.last == 0 { padded.removeLast() }
        guard padded.last == 0x02 else { throw Refusal.undecryptable }
        padded.removeLast()
        return padded
    }

    /// RFC 8291 §3.4: the input keying material from the ECDH secret and the authentication secret, then RFC 8188's
    /// content encryption key and nonce from it and the salt.
    static func keyAndNonce(secret: SharedSecret, authSecret: [UInt8], receiver: [UInt8], sender: [UInt8], salt: [UInt8]) -> (SymmetricKey, [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiver + sender
        let ikm = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let key = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        return (key, nonce.withUnsafeBytes(Array.init))
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
