import ByteOutput
import Testing

@Suite struct OutputBufferTests {
    @Test func appendsBytesStringsAndStaticStringsInOrder() {
        var buffer = OutputBuffer(capacity: 16)
        buffer.append("<p>" as StaticString)
        buffer.append("héllo")
        buffer.append(UInt8(ascii: "!"))
        buffer.append(contentsOf: [0x3C, 0x2F, 0x70, 0x3E])
        #expect(buffer.string == "<p>héllo!</p>")
        #expect(buffer.count == "<p>héllo!</p>".utf8.count)
    }

    @Test func growsPastItsInitialCapacityWithoutLosingBytes() {
        var buffer = OutputBuffer(capacity: 16)
        for i in 0..<10_000 { buffer.append(UInt8(truncatingIfNeeded: i)) }
        #expect(buffer.count == 10_000)
        #expect(buffer.bytes == (0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func copiesAreIndependentValues() {
        var first = OutputBuffer()
        first.append("shared")
        var second = first
        second.append(" and more")
        first.append("!")
        #expect(first.string == "shared!")
        #expect(second.string == "shared and more")
    }

    @Test func removeAllKeepsOtherCopiesIntact() {
        var first = OutputBuffer()
        first.append("keep me")
        let copy = first
        first.removeAll()
        #expect(first.isEmpty)
        #expect(copy.string == "keep me")
    }
}
