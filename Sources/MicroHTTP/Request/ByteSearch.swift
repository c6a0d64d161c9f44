#if canImport(Glibc)
import Glibc
#endif

/// Finding a byte string in bytes, with memchr and memcmp. The standard library's `firstRange(of:)`
/// takes a generic path that looked up type metadata on every call: it was most of an upload's time
/// (a 2.5 MB photo took 400 ms to parse on loopback).
enum ByteSearch {
    /// Where `needle` first occurs in `haystack`, as indices of `haystack`; nil when it does not, or is empty.
    static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Range<Int>? in
            needle.withUnsafeBufferPointer { pin -> Range<Int>? in
                guard let start = hay.baseAddress, let pattern = pin.baseAddress else { return nil }
                let last = hay.count - pin.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(start + offset, Int32(pattern.pointee), last - offset + 1) else { return nil }
                    let at = hit.assumingMemoryBound(to: UInt8.self) - UnsafeMutablePointer(mutating: start)
                    if memcmp(start + at, pattern, pin.count) == 0 {
                        return haystack.startIndex + at ..< haystack.startIndex + at + pin.count
                    }
                    offset = at + 1
                }
                return nil
            }
        }
    }

    static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        firstRange(of: needle, in: haystack[...])
    }
}
