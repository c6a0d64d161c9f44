import ParlorDomain
import Testing

/// A room's name and topic: trimmed, one line, within their lengths; refused with a reason otherwise.
@Suite struct RoomTextTests {
    @Test func aNameIsTrimmedAndMayHaveEightyCharactersOfAnyScript() throws {
        #expect(try RoomName.validated("  Équipe 🚀  ") == "Équipe 🚀")
        let longest = String(repeating: "👩‍👩‍👧‍👦", count: 80)
        #expect(try RoomName.validated(longest) == longest, "counted as a person counts characters")
    }

    @Test(arguments: [
        ("", Refusal.invalidRoomName), ("   ", .invalidRoomName), (String(repeating: "a", count: 81), .invalidRoomName),
        ("Two\nlines", .invalidRoomName), ("Bell\u{7}", .controlCharacter),
    ])
    func aNameThatCannotBeIsRefusedWithWhy(_ name: String, _ reason: Refusal) {
        #expect(throws: reason) { try RoomName.validated(name) }
    }

    @Test func aTopicIsOptionalOneLineAndAtMostTwoHundredFiftyCharacters() throws {
        #expect(try RoomTopic.validated("  ") == nil)
        #expect(try RoomTopic.validated(" Release on Friday ") == "Release on Friday")
        #expect(throws: Refusal.invalidTopic) { try RoomTopic.validated(String(repeating: "t", count: 251)) }
        #expect(throws: Refusal.invalidTopic) { try RoomTopic.validated("a\nb") }
        #expect(throws: Refusal.controlCharacter) { try RoomTopic.validated("a\u{0}b") }
        #expect(!Refusal.invalidRoomName.message.isEmpty && !Refusal.invalidTopic.message.isEmpty)
    }
}
