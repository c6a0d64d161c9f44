#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that could not be read into a buffer.
public struct FileReadError: Error, CustomStringConvertible {
    /// The path that was asked for.
    public let path: String
    /// The `errno` reported.
    public let code: Int32

    public var description: String { "cannot read \(path) (\(String(cString: strerror(code))))" }
}

extension OutputBuffer {
    /// A buffer holding the whole file at `path` (for pages and assets read once at start-up).
    public init(contentsOfFile path: String) throws(FileReadError) {
        guard let file = fopen(path, "rb") else { throw FileReadError(path: path, code: errno) }
        defer { fclose(file) }
        self.init(capacity: 16 * 1024)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 {
            chunk.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        if ferror(file) != 0 { throw FileReadError(path: path, code: errno) }
    }
}
