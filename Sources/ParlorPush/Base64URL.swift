import Foundation

/// Base64url without padding (RFC 4648 §5), as Web Push writes keys, salts and tokens.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Nil for anything that is not base64url (padding is accepted, as some browsers send it).
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F || byte == 0x3D
        }) else { return nil }
        var standard = text.replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
