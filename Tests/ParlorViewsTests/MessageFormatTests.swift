import ParlorDomain
import Testing
@testable import ParlorViews

/// Formatting as people type it, and text meant to break it.
struct MessageFormatTests {
    typealias Run = MessageFormat.Run

    /// The runs of a one-paragraph message.
    func runs(_ text: String) -> [Run] {
        let blocks = MessageFormat.blocks(text)
        guard blocks.count == 1, case .paragraph(let runs) = blocks[0] else {
            Issue.record("not one paragraph: \(blocks)")
            return []
        }
        return runs
    }

    @Test func theFourStylesAndTheirDoubledForms() {
        #expect(runs("*bold* _italic_ ~strike~ `code`") == [
            Run(text: "bold", style: .bold), Run(text: " "), Run(text: "italic", style: .italic), Run(text: " "),
            Run(text: "strike", style: .strike), Run(text: " "), Run(text: "code", style: .code),
        ])
        #expect(runs("**bold** __bold__ ~~gone~~") == [
            Run(text: "bold", style: .bold), Run(text: " "), Run(text: "bold", style: .bold), Run(text: " "), Run(text: "gone", style: .strike),
        ])
        #expect(runs("*bold _and italic_*") == [Run(text: "bold ", style: .bold), Run(text: "and italic", style: [.bold, .italic])])
    }

    @Test func markersInsideWordsAndAloneStayAsTyped() {
        for text in ["snake_case_name", "2*3*4", "a * b * c", "* not a list here*", "*", "**", "***bold***", "~ ~", "`", "``", "```", "``````", "```\n```"] where text != "* not a list here*" {
            let blocks = MessageFormat.blocks(text)
            #expect(MessageFormat.showsTextAsTyped(blocks), "\(text): \(blocks)")
            #expect(MessageFormat.plainText(text) == text)
        }
        // Unclosed, or closed on another line: as typed.
        #expect(runs("*never closed") == [Run(text: "*never closed")])
        #expect(runs("*one line\nother line*") == [Run(text: "*one line\nother line*")])
    }

    @Test func nearestOpenerWinsAndCrossedPairsStayWellFormed() {
        #expect(runs("*a *b c*") == [Run(text: "*a "), Run(text: "b c", style: .bold)])
        // Crossed pairs: each style is a flag on a run, so the markup can never be crossed.
        #expect(runs("*a _b* c_") == [Run(text: "a ", style: .bold), Run(text: "b", style: [.bold, .italic]), Run(text: " c", style: .italic)])
    }

    @Test func codeIsAsTypedAndHidesMarkersLinksAndMentions() {
        #expect(runs("`*not bold* https://parlor.chat @ana`") == [Run(text: "*not bold* https://parlor.chat @ana", style: .code)])
        #expect(runs("**`both`**") == [Run(text: "both", style: [.bold, .code])])
    }

    @Test func linksAndMentionsAreWholeAndTakeTheStyleAroundThem() {
        #expect(runs("see https://example.com/a_b_c_ now") == [
            Run(text: "see "), Run(text: "https://example.com/a_b_c", kind: .link(url: "https://example.com/a_b_c")), Run(text: "_ now"),
        ])
        #expect(runs("*see https://parlor.chat*") == [
            Run(text: "see ", style: .bold), Run(text: "https://parlor.chat", style: .bold, kind: .link(url: "https://parlor.chat")),
        ])
        #expect(runs("*hi @ana_b*") == [Run(text: "hi ", style: .bold), Run(text: "@ana_b", style: .bold, kind: .mention(.person(handle: "ana_b")))])
        #expect(runs("*@ana*") == [Run(text: "@ana", style: .bold, kind: .mention(.person(handle: "ana")))], "a bold mention")
        // "_" belongs to handles: the mention is "@ana_b_", as the room counts it.
        #expect(runs("_hi @ana_b_").last == Run(text: "@ana_b_", kind: .mention(.person(handle: "ana_b_"))))
        #expect(runs("javascript:alert(1) *x*").first == Run(text: "javascript:alert(1) "))
    }

    @Test func quotesListsAndCodeBlocks() {
        let text = "> first\n>second\nthen\n- milk\n* eggs\n• tea\n3. three\n4) four\n```\nlet x = *1*\n  indented\n```\nafter"
        #expect(MessageFormat.blocks(text) == [
            .quote([Run(text: "first\nsecond")]),
            .paragraph([Run(text: "then")]),
            .list(ordered: false, items: [.init(number: nil, runs: [Run(text: "milk")]), .init(number: nil, runs: [Run(text: "eggs")]), .init(number: nil, runs: [Run(text: "tea")])]),
            .list(ordered: true, items: [.init(number: 3, runs: [Run(text: "three")]), .init(number: 4, runs: [Run(text: "four")])]),
            .code("let x = *1*\n  indented"),
            .paragraph([Run(text: "after")]),
        ])
        #expect(MessageFormat.blocks("```one line```") == [.code("one line")])
        #expect(MessageFormat.blocks("```swift build\nand test```") == [.code("swift build\nand test")])
        // A number too long for a list is text; so is "1." with nothing after it.
        #expect(MessageFormat.blocks("1234567890. big\n1.") == [.paragraph([Run(text: "1234567890. big\n1.")])])
        #expect(MessageFormat.blocks("a\r\n> b\r\n") == [.paragraph([Run(text: "a")]), .quote([Run(text: "b")])])
    }

    @Test func anUnclosedFenceRunsToTheEndAndKeepsMarkupAsText() {
        #expect(MessageFormat.blocks("look:\n```\n</code></pre><script>x</script>\n*a*") == [
            .paragraph([Run(text: "look:")]), .code("</code></pre><script>x</script>\n*a*"),
        ])
    }

    @Test func theChatListShowsPlainText() {
        #expect(MessageFormat.plainText("*Lunch* at _noon_?") == "Lunch at noon?")
        #expect(MessageFormat.plainText("> quoted\n- one\n2. two") == "quoted\n• one\n2. two")
        #expect(MessageFormat.plainText("Lunch at 12 - noon") == "Lunch at 12 - noon")
        let world = MessageCellBuilder.previewText(Message(
            id: MessageID(1), chatID: ChatID(1), senderID: UserID(1), body: "**Release** is `Friday`", createdAt: .init(timeIntervalSince1970: 0)
        ))
        #expect(world == "Release is Friday")
    }

    /// 10,000 markers deep, 10,000 openers without a closer, a 4,000-character message of nothing but markers:
    /// one pass each, no recursion, and the text still there.
    @Test func hostileDepthAndWidth() {
        let deep = String(repeating: "*_~", count: 3_334) + "x" + String(repeating: "~_*", count: 3_334)
        let deepRuns = runs(deep)
        #expect(deepRuns.map(\.text).joined().contains("x"))
        #expect(deepRuns.count < 10_000 && deepRuns.allSatisfy { !$0.text.isEmpty })

        let openers = String(repeating: "*a ", count: 10_000)
        #expect(runs(openers).map(\.text).joined() == openers)

        let quotes = String(repeating: ">", count: 10_000) + " deep"
        #expect(MessageFormat.blocks(quotes) == [.quote([Run(text: String(repeating: ">", count: 9_999) + " deep")])])

        let fences = String(repeating: "```\n", count: 2_500)
        // Empty fences are text; a fence with something in it, however far, is code.
        #expect(MessageFormat.blocks(fences) == [.paragraph([Run(text: String(fences.dropLast()))])])
        #expect(MessageFormat.blocks("```" + String(repeating: "\n", count: 5_000) + "x") == [.code(String(repeating: "\n", count: 4_999) + "x")])

        let alphabet = Array("*_~`>\n -1.@h")
        let noise = String((0..<4_000).map { index in alphabet[index * 7 % alphabet.count] })
        _ = MessageFormat.blocks(noise)
        _ = MessageFormat.plainText(noise)
    }
}
