import ServerSentEvents
import MicroHTTP
import Testing
@testable import ParlorWeb

/// `Last-Event-ID` is a header like any other: only what Parlor writes reads as a position.
@Suite struct StreamPositionTests {
    @Test func anIdParlorWroteReadsBackAsTheSamePosition() {
        for position in [StreamPosition(run: "mfk3x0a1", sequence: 1), StreamPosition(run: "zzzzzzzzzzzzz", sequence: .max)] {
            #expect(StreamPosition.parse(position.id) == position)
        }
        let encoder = StreamEncoder(ring: EventRing(capacity: 1))
        #expect(StreamPosition.parse("\(encoder.run)-7").map(encoder.isThisRun) == true)
        #expect(StreamPosition.parse("abc-7").map(encoder.isThisRun) == false)
    }

    @Test(arguments: [
        "", "-", "abc", "abc-", "-5", "abc-0", "abc--5", "abc-+5", "abc- 5", "ABC-5", "abc-5 ", "a.c-5", "abc-9223372036854775808",
        "abc-99999999999999999999", "abcdefghijklmn-5", "abc-5-6", "abc-٥", String(repeating: "9", count: 100_000),
        "abc\0-5", "abc-5\r\nid: forged",
        // Found by FuzzLastEventID: Parlor never writes a leading zero, so "02" is not its 2.
        "22jor-02",
    ])
    func anythingElseIsNoPosition(_ text: String) {
        #expect(StreamPosition.parse(text) == nil)
    }
}
