import Testing
@testable import MicroHTTP

@Suite struct ByteSearchTests {
    /// What the standard library's search answers, the slow way.
    static func naive(_ needle: [UInt8], _ haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in haystack.startIndex...(haystack.endIndex - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }

    @Test func itFindsWhatANaiveSearchFindsInSlicesOfRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            // A small alphabet, so near misses (the first byte matching, the rest not) are common.
            let haystack = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...3, using: &generator) }
            let needle = (0..<Int.random(in: 0...5, using: &generator)).map { _ in UInt8.random(in: 0...3, using: &generator) }
            let from = Int.random(in: 0...haystack.count, using: &generator)
            let slice = haystack[from...]
            #expect(ByteSearch.firstRange(of: needle, in: slice) == Self.naive(needle, slice), "\(needle) in \(Array(slice)) from \(from)")
        }
    }

    @Test func aBoundaryAtTheVeryEndIsFoundAndAnAlmostBoundaryIsNot() {
        let separator = Array("\r\n--abc".utf8)
        #expect(ByteSearch.firstRange(of: separator, in: Array("xx\r\n--ab\r\n--abc".utf8)) == 8..<15)
        #expect(ByteSearch.firstRange(of: separator, in: Array("xx\r\n--ab".utf8)) == nil)
        #expect(ByteSearch.firstRange(of: [], in: Array("abc".utf8)) == nil)
    }
}
