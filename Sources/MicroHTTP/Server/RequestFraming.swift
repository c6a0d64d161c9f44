// RFC 9112's rules for where a request ends, checked on the head before a byte of the body is read.
// A request that breaks them may be read one way by a proxy in front of the server and another way
// here (request smuggling), so it is refused with 400 and its connection closed.
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// What a request head says about its framing, gathered in one walk over its fields.
struct RequestFraming {
    private(set) var hosts = 0
    private(set) var contentLengths = 0
    /// The one `Content-Length`, when there is exactly one and it is digits only (clamped to `Int.max`).
    private(set) var contentLength: Int?
    private(set) var transferEncodings = 0
    private(set) var chunked = false
    private(set) var malformedName = false
    private(set) var folded = false
    /// Where libmicrohttpd keeps the head as it arrived. A field it built from a folded line lives
    /// elsewhere (libmicrohttpd 0.9.75 joins the continuation onto the name in a fresh buffer).
    private let head: ClosedRange<UInt>?

    init(headStart: UnsafePointer<CChar>, headSize: Int) {
        let start = UInt(bitPattern: headStart)
        head = headSize > 0 && start <= UInt.max - UInt(headSize) ? start...(start + UInt(headSize)) : nil
    }

    /// Reads the fields of `connection`'s request head.
    static func survey(_ connection: OpaquePointer, method: UnsafePointer<CChar>) -> RequestFraming {
        var framing = RequestFraming(headStart: method, headSize: parlor_mhd_request_head_size(connection))
        _ = withUnsafeMutablePointer(to: &framing) {
            MHD_get_connection_values(connection, .HEADER_KIND, Self.visit, $0)
        }
        return framing
    }

    private static let visit: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        cls.assumingMemoryBound(to: RequestFraming.self).pointee.add(name: key, value: value)
        return .YES
    }

    mutating func add(name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) {
        if let head, !head.contains(UInt(bitPattern: name)) { folded = true }
        let nameBytes = UnsafeBufferPointer(start: name, count: strlen(name))
        if nameBytes.isEmpty || !nameBytes.allSatisfy({ Self.isTokenCharacter(UInt8(bitPattern: $0)) }) { malformedName = true }
        let valueBytes = value.map { UnsafeBufferPointer(start: $0, count: strlen($0)) } ?? UnsafeBufferPointer(start: nil, count: 0)
        if Self.named(nameBytes, "host") {
            hosts += 1
        } else if Self.named(nameBytes, "content-length") {
            contentLengths += 1
            contentLength = contentLengths == 1 ? Self.length(valueBytes) : nil
        } else if Self.named(nameBytes, "transfer-encoding") {
            transferEncodings += 1
            chunked = transferEncodings == 1 && Self.named(valueBytes, "chunked")
        }
    }

    /// Why the request must be refused, or nil. `http11` is true for HTTP/1.1, which needs one `Host`.
    func problem(http11: Bool) -> String? {
        if folded { return "Header fields may not be folded over several lines." }
        if malformedName { return "A header field name is malformed." }
        if transferEncodings > 0 && contentLengths > 0 {
            return "The request gives its length twice (Content-Length and Transfer-Encoding)."
        }
        if contentLengths > 1 { return "The request has more than one Content-Length." }
        if contentLengths == 1 && contentLength == nil { return "The Content-Length is not a number." }
        if transferEncodings > 1 || (transferEncodings == 1 && !chunked) {
            return "The only Transfer-Encoding accepted is chunked."
        }
        if hosts > 1 { return "The request has more than one Host." }
        if hosts == 0 && http11 { return "An HTTP/1.1 request needs a Host." }
        return nil
    }

    /// RFC 9110's `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `bytes` spell the lower-case ASCII `name`, ignoring case.
    private static func named(_ bytes: UnsafeBufferPointer<CChar>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { UInt8(bitPattern: $0) | 0x20 == $1 }
    }

    /// `1*DIGIT`, clamped to `Int.max`; nil for anything else (signs, spaces, lists, an empty value).
    static func length(_ bytes: UnsafeBufferPointer<CChar>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for char in bytes {
            let byte = UInt8(bitPattern: char)
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }
}
