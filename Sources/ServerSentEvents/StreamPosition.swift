/// Where a page's event stream stood: the server run that numbered the updates, and the number of the
/// last one the page received. Written as an event's `id:` ("mfk3x0a1-42"), and read back from the
/// `Last-Event-ID` a reconnecting browser sends, which is outside bytes like any header: anything Parlor
/// did not write (too long, other characters, a number past `Int64`) reads as no position at all.
public struct StreamPosition: Hashable, Sendable {
    /// The run: base-36 digits, at most 13 (milliseconds since 1970 in base 36).
    public let run: String
    /// The update's number in that run, from 1.
    public let sequence: Int64

    public init(run: String, sequence: Int64) {
        self.run = run
        self.sequence = sequence
    }

    /// The `id:` field.
    public var id: String { "\(run)-\(sequence)" }

    /// Parses a `Last-Event-ID`.
    public static func parse(_ text: String) -> StreamPosition? {
        let utf8 = text.utf8
        guard utf8.count <= 40, let dash = utf8.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let runBytes = utf8[..<dash], numberBytes = utf8[utf8.index(after: dash)...]
        guard (1...13).contains(runBytes.count), runBytes.allSatisfy(isBase36Digit),
              (1...19).contains(numberBytes.count), numberBytes.first != UInt8(ascii: "0"),
              numberBytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        var sequence: Int64 = 0
        for byte in numberBytes {
            let (times10, overflow1) = sequence.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            sequence = sum
        }
        guard sequence >= 1 else { return nil }
        return StreamPosition(run: String(decoding: runBytes, as: UTF8.self), sequence: sequence)
    }

    private static func isBase36Digit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
    }
}
