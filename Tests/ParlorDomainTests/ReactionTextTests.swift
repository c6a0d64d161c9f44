import ParlorDomain
import Testing

/// What a reaction may be: an emoji or a few words on one line.
@Suite struct ReactionTextTests {
    @Test func emojiAndShortWordsAreReactionsTrimmed() throws {
        #expect(try ReactionText.validated(" 👍 ") == "👍")
        #expect(try ReactionText.validated("👩‍👩‍👧‍👦") == "👩‍👩‍👧‍👦", "a family is one character")
        #expect(try ReactionText.validated("👍🏽") == "👍🏽")
        #expect(try ReactionText.validated("+1") == "+1")
        #expect(try ReactionText.validated(String(repeating: "a", count: 16)) == String(repeating: "a", count: 16))
        #expect(try ReactionText.validated(String(repeating: "🎉", count: 16)).count == 16)
    }

    @Test func emptyLongMultilineAndControlTextIsRefused() {
        for text in ["", "   ", String(repeating: "a", count: 17), "two\nlines", "tab\u{0}nul", "bell\u{7}", String(repeating: "👩‍👩‍👧‍👦", count: 16)] {
            #expect(throws: (any Error).self, "\(text.debugDescription)") { try ReactionText.validated(text) }
        }
        #expect(throws: Refusal.invalidReaction) { try ReactionText.validated(String(repeating: "x", count: 17)) }
        #expect(throws: Refusal.controlCharacter) { try ReactionText.validated("a\u{1}") }
    }

    @Test func rowsAreCountedPerMessageInTheOrderGiven() {
        let one = MessageID(1), two = MessageID(2)
        let rows = [
            StoredReaction(messageID: one, userID: UserID(1), text: "👍", at: .now, name: "Ana"),
            StoredReaction(messageID: two, userID: UserID(1), text: "🎉", at: .now, name: "Ana"),
            StoredReaction(messageID: one, userID: UserID(2), text: "❤️", at: .now, name: "Ben"),
            StoredReaction(messageID: one, userID: UserID(3), text: "👍", at: .now, name: "Chloé"),
        ]
        let counts = StoredReaction.counts(rows)
        #expect(counts[one] == [
            ReactionCount(text: "👍", people: [UserID(1), UserID(3)], names: ["Ana", "Chloé"]),
            ReactionCount(text: "❤️", people: [UserID(2)], names: ["Ben"]),
        ])
        #expect(counts[two]?.map(\.text) == ["🎉"])
    }
}
