/// Text from outside (a request path, a header, a library message) on its way into a log line. Control
/// characters are written as escapes, so a request can neither start a forged log line with CR or LF nor
/// send terminal escape sequences to whoever reads the log.
extension String {
    /// This text with C0 controls, DEL, C1 controls and the Unicode line separators written as `\n`, `\r`,
    /// `\t`, `\x1b`, `\u{85}`, and backslashes doubled, so that an escape in the log always means the
    /// character was there.
    public var escapedForLog: String { escaped(backslashes: true) }

    /// The same without doubling backslashes: for a log handler that writes lines whose outside parts were
    /// escaped already, as the last guard against a raw control character.
    public var controlsEscapedForLog: String { escaped(backslashes: false) }

    private func escaped(backslashes: Bool) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.isLogControl || (backslashes && scalar == "\\") }
        guard unicodeScalars.contains(where: needsEscape) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard needsEscape(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\\": escaped += "\\\\"
            default:
                let hex = String(scalar.value, radix: 16)
                escaped += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}"
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// C0 controls, DEL, C1 controls, and the line and paragraph separators.
    fileprivate var isLogControl: Bool {
        value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }
}
