import ByteOutput
#if canImport(Glibc)
import Glibc
#endif
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

@Suite struct OutputBufferFileTests {
    @Test func truncateTakesBackTheTailWithoutTouchingACopy() {
        var buffer = OutputBuffer(capacity: 4)
        buffer.append("indent")
        let copy = buffer
        buffer.truncate(toCount: 3)
        #expect(buffer.string == "ind")
        #expect(buffer.last == UInt8(ascii: "d"))
        #expect(copy.string == "indent")
        buffer.truncate(toCount: 0)
        #expect(buffer.last == nil)
    }

    @Test func readsAWholeFileLargerThanOneChunk() throws {
        let path = "/tmp/parlor-output-buffer-\(UInt32.random(in: 0 ... .max)).bin"
        let bytes = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = try #require(fopen(path, "wb"))
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        defer { unlink(path) }
        #expect(try OutputBuffer(contentsOfFile: path).bytes == bytes)
    }

    @Test func missingFileThrowsWithItsPath() {
        #expect(throws: FileReadError.self) { try OutputBuffer(contentsOfFile: "/nonexistent/parlor/page.html") }
        do {
            _ = try OutputBuffer(contentsOfFile: "/nonexistent/parlor/page.html")
        } catch {
            #expect(error.description.hasPrefix("cannot read /nonexistent/parlor/page.html"))
        }
    }
}
