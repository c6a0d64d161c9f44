/// The named entities of HTML that real feeds use without declaring them (XML knows only five).
enum HTMLEntities {
    static let named: [String: UInt32] = [
        "nbsp": 160, "iexcl": 161, "cent": 162, "pound": 163, "curren": 164, "yen": 165, "brvbar": 166, "sect": 167, "uml": 168,
        "copy": 169, "ordf": 170, "laquo": 171, "not": 172, "shy": 173, "reg": 174, "macr": 175, "deg": 176, "plusmn": 177,
        "sup2": 178, "sup3": 179, "acute": 180, "micro": 181, "para": 182, "middot": 183, "cedil": 184, "sup1": 185, "ordm": 186,
        "raquo": 187, "frac14": 188, "frac12": 189, "frac34": 190, "iquest": 191, "Agrave": 192, "Aacute": 193, "Acirc": 194,
        "Atilde": 195, "Auml": 196, "Aring": 197, "AElig": 198, "Ccedil": 199, "Egrave": 200, "Eacute": 201, "Ecirc": 202,
        "Euml": 203, "Igrave": 204, "Iacute": 205, "Icirc": 206, "Iuml": 207, "ETH": 208, "Ntilde": 209, "Ograve": 210,
        "Oacute": 211, "Ocirc": 212, "Otilde": 213, "Ouml": 214, "times": 215, "Oslash": 216, "Ugrave": 217, "Uacute": 218,
        "Ucirc": 219, "Uuml": 220, "Yacute": 221, "THORN": 222, "szlig": 223, "agrave": 224, "aacute": 225, "acirc": 226,
        "atilde": 227, "auml": 228, "aring": 229, "aelig": 230, "ccedil": 231, "egrave": 232, "eacute": 233, "ecirc": 234,
        "euml": 235, "igrave": 236, "iacute": 237, "icirc": 238, "iuml": 239, "eth": 240, "ntilde": 241, "ograve": 242,
        "oacute": 243, "ocirc": 244, "otilde": 245, "ouml": 246, "divide": 247, "oslash": 248, "ugrave": 249, "uacute": 250,
        "ucirc": 251, "uuml": 252, "yacute": 253, "thorn": 254, "yuml": 255, "OElig": 338, "oelig": 339, "Scaron": 352,
        "scaron": 353, "Yuml": 376, "fnof": 402, "circ": 710, "tilde": 732, "ensp": 8194, "emsp": 8195, "thinsp": 8201,
        "zwnj": 8204, "zwj": 8205, "lrm": 8206, "rlm": 8207, "ndash": 8211, "mdash": 8212, "lsquo": 8216, "rsquo": 8217,
        "sbquo": 8218, "ldquo": 8220, "rdquo": 8221, "bdquo": 8222, "dagger": 8224, "Dagger": 8225, "bull": 8226,
        "hellip": 8230, "permil": 8240, "prime": 8242, "Prime": 8243, "lsaquo": 8249, "rsaquo": 8250, "euro": 8364,
        "trade": 8482, "larr": 8592, "rarr": 8594, "uarr": 8593, "darr": 8595, "hearts": 9829,
        "amp": 38, "lt": 60, "gt": 62, "quot": 34, "apos": 39,
    ]
    static let xml: Set<String> = ["amp", "lt", "gt", "quot", "apos"]

    /// The document with every HTML named entity written as a character reference XML knows ("&nbsp;" ->
    /// "&#160;"), and an unknown one as text ("&foo;" -> "&amp;foo;"): libxml2 refuses a document with an
    /// undeclared entity. Works on bytes, so any ASCII-compatible encoding is left as it was.
    static func declaredForXML(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            // A name of letters and digits, then ';', within 32 bytes.
            var end = index + 1
            while end < bytes.count, end - index <= 32, isNameByte(bytes[end]) { end += 1 }
            guard end > index + 1, end < bytes.count, bytes[end] == UInt8(ascii: ";"), isLetter(bytes[index + 1]) else {
                out.append(byte)
                index += 1
                continue
            }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            if xml.contains(name) {
                out.append(contentsOf: bytes[index...end])
            } else if let code = named[name] {
                out.append(contentsOf: Array("&#\(code);".utf8))
            } else {
                out.append(contentsOf: Array("&amp;".utf8))
                out.append(contentsOf: bytes[(index + 1)...end])
            }
            index = end + 1
        }
        return out
    }

    /// Text as HTML text or attribute value: `&`, `<`, `>` and `"` as references.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" || $0 == "\"" }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isNameByte(_ byte: UInt8) -> Bool { isLetter(byte) || (0x30...0x39).contains(byte) }

    /// Text with HTML's entities decoded: named (from the table), decimal and hexadecimal. A reference to
    /// no valid character (a surrogate, zero, past U+10FFFF) becomes U+FFFD.
    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(33).firstIndex(of: ";") else {
                out += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var scalar: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).map { Unicode.Scalar($0) ?? "\u{FFFD}" }
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst(), radix: 10).map { Unicode.Scalar($0) ?? "\u{FFFD}" }
            } else if let code = named[String(name)] {
                scalar = Unicode.Scalar(code)
            }
            if let scalar, scalar.value != 0 {
                out.unicodeScalars.append(scalar)
                rest = after[after.index(after: semicolon)...]
            } else if scalar != nil {
                out.unicodeScalars.append("\u{FFFD}")
                rest = after[after.index(after: semicolon)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }
}
