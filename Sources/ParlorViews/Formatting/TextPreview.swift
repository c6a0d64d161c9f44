/// One-line excerpts of message text, cut on a character boundary so no emoji or accent is ever split.
public enum TextPreview {
    /// Collapses every run of whitespace (line breaks included) to one space, trims, and cuts to at most
    /// `limit` characters, ending with "…" when something was cut.
    public static func excerpt(_ text: String, limit: Int = 80) -> String {
        var result = ""
        var count = 0
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            let needed = pendingSpace ? 2 : 1
            if count + needed > limit {
                return result + "…"
            }
            if pendingSpace {
                result.append(" ")
                count += 1
                pendingSpace = false
            }
            result.append(character)
            count += 1
        }
        return result
    }
}
