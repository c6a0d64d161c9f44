/// The rules for a room's name: 1 to 80 characters once trimmed, one line. Two rooms may share a name.
public enum RoomName {
    public static let maximumLength = 80

    public static func validated(_ text: String) throws(Refusal) -> String {
        try StoredText.refuseControlCharacters(text)
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= maximumLength, !name.contains(where: \.isNewline) else { throw .invalidRoomName }
        return name
    }
}

/// The rules for a room's topic line: at most 250 characters once trimmed, one line; empty is no topic.
public enum RoomTopic {
    public static let maximumLength = 250

    public static func validated(_ text: String) throws(Refusal) -> String? {
        try StoredText.refuseControlCharacters(text)
        let topic = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard topic.count <= maximumLength, !topic.contains(where: \.isNewline) else { throw .invalidTopic }
        return topic.isEmpty ? nil : topic
    }
}
