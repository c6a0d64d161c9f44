import ParlorDomain
import Testing

/// `@handle`, `@everyone` and `@here` as people type them, and what only looks like one.
@Suite struct MentionTests {
    @Test func mentionsBeginWordsAndNameAPersonTheRoomOrWhoIsThere() {
        let text = "@Ana lunch? (@ben_2) ask @everyone and @HERE, not ana@example.org or example.org/@ana"
        let found = Mentions.find(in: text)
        #expect(found.map(\.target) == [.person(handle: "ana"), .person(handle: "ben_2"), .everyone, .here])
        // Each range is the "@" and the handle as typed.
        let bytes = Array(text.utf8)
        #expect(found.map { String(decoding: bytes[$0.range], as: UTF8.self) } == ["@Ana", "@ben_2", "@everyone", "@HERE"])
        #expect(Mentions.handles(in: text) == ["ana", "ben_2"])
    }

    @Test(arguments: ["@ab", "@" + String(repeating: "a", count: 21), "@", "@@ana", "x@ana", "@-ana", "e-mail@ana.org"])
    func whatIsNoHandleNamesNobody(_ text: String) {
        #expect(Mentions.find(in: text).isEmpty, "\(text)")
    }

    /// Formatting around a name keeps it a mention: bold and struck through.
    @Test func aMentionInBoldOrStruckThroughStillNames() {
        #expect(Mentions.find(in: "*@ana* and ~@ben~ and **@chloe**").map(\.target) == [
            .person(handle: "ana"), .person(handle: "ben"), .person(handle: "chloe"),
        ])
        #expect(Mentions.find(in: "2*@ana").isEmpty == false, "a marker is a word's start wherever it stands")
    }

    @Test func aMentionEndsWhereAHandleCannotGoOn() {
        let found = Mentions.find(in: "Thanks @ana. And @chloé!\n@ben's turn")
        // "é" is not in a handle: "@chlo" is a handle of its own, as the sign-up rules would read it.
        #expect(found.map(\.target) == [.person(handle: "ana"), .person(handle: "chlo"), .person(handle: "ben")])
    }
}
