/// Where the bytes of uploaded files go while a multipart form streams in.
protocol UploadWriter {
    /// A file part starts.
    mutating func begin(fieldName: String, filename: String, contentType: String?) throws(FormParser.Failure)
    /// More of its bytes, in order.
    mutating func write(_ bytes: ArraySlice<UInt8>) throws(FormParser.Failure)
    /// It is complete.
    mutating func end() throws(FormParser.Failure)
}

/// RFC 7578 multipart/form-data parsed as it arrives, in pieces of any size: text fields are kept (at
/// most `fieldLimit` bytes of them in all, and part heads of at most `headLimit`), and each file's bytes
/// go to the writer as they come, so an upload never has to fit in memory. It reads what
/// ``FormParser/multipart(_:boundary:)`` reads from the same bytes however they are split (the fuzz
/// target FuzzMultipartStream checks this).
struct MultipartStream<Writer: UploadWriter> {
    private enum State { case preamble, afterDelimiter, head, content(isFile: Bool), done }

    let fieldLimit: Int
    let headLimit: Int
    /// Most file parts and most text fields: one past either is ``FormParser/Failure/tooManyParts``, thrown
    /// at that part's head, before its writer is asked to begin anything.
    let limits: UploadLimits
    private var fileCount = 0
    private var fieldCount = 0
    private(set) var writer: Writer
    private let delimiter: [UInt8]
    private let separator: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = []
    private var fieldName = ""
    private var fieldBytes: [UInt8] = []
    private var fieldTotal = 0
    private(set) var fields = QueryItems()
    private static var headEnd: [UInt8] { [0x0D, 0x0A, 0x0D, 0x0A] }

    init(boundary: [UInt8], writer: Writer, limits: UploadLimits = .unlimited, fieldLimit: Int = 64 * 1024, headLimit: Int = 8 * 1024) {
        delimiter = Array("--".utf8) + boundary
        separator = Array("\r\n--".utf8) + boundary
        self.writer = writer
        self.limits = limits
        self.fieldLimit = fieldLimit
        self.headLimit = headLimit
    }

    /// The next piece of the body.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(FormParser.Failure) {
        if case .done = state { return }
        pending.append(contentsOf: bytes)
        while try step() {}
    }

    /// The body ended: the form must have been closed by its last delimiter.
    mutating func finish() throws(FormParser.Failure) {
        guard case .done = state else { throw .malformed }
    }

    /// One move of the state machine; false when it needs more bytes.
    private mutating func step() throws(FormParser.Failure) -> Bool {
        switch state {
        case .done:
            pending = []
            return false
        case .preamble:
            guard let found = ByteSearch.firstRange(of: delimiter, in: pending) else {
                pending.removeFirst(max(0, pending.count - (delimiter.count - 1)))
                return false
            }
            pending.removeFirst(found.upperBound)
            state = .afterDelimiter
            return true
        case .afterDelimiter:
            guard pending.count >= 2 else { return false }
            if pending.starts(with: Array("--".utf8)) {
                state = .done
                return true
            }
            guard pending.starts(with: Array("\r\n".utf8)) else { throw .malformed }
            pending.removeFirst(2)
            state = .head
            return true
        case .head:
            guard let end = ByteSearch.firstRange(of: Self.headEnd, in: pending) else {
                if pending.count > headLimit { throw .tooLarge }
                return false
            }
            guard end.lowerBound <= headLimit else { throw .tooLarge }
            let head = try FormParser.partHead(pending[..<end.lowerBound])
            pending.removeFirst(end.upperBound)
            if head.filename != nil {
                guard fileCount < limits.files else { throw .tooManyParts }
                fileCount += 1
            } else {
                guard fieldCount < limits.fields else { throw .tooManyParts }
                fieldCount += 1
            }
            if let filename = head.filename {
                try writer.begin(fieldName: head.name, filename: filename, contentType: head.contentType)
                state = .content(isFile: true)
            } else {
                fieldName = head.name
                fieldBytes = []
                state = .content(isFile: false)
            }
            return true
        case .content(let isFile):
            if let found = ByteSearch.firstRange(of: separator, in: pending) {
                try take(pending[..<found.lowerBound], isFile: isFile)
                pending.removeFirst(found.upperBound)
                if isFile {
                    try writer.end()
                } else {
                    guard let value = String(validating: fieldBytes, as: UTF8.self) else { throw .invalidUTF8 }
                    fields.append(fieldName, value)
                }
                state = .afterDelimiter
                return true
            }
            // All but what could be the start of the separator.
            let safe = max(0, pending.count - (separator.count - 1))
            try take(pending[..<safe], isFile: isFile)
            pending.removeFirst(safe)
            return false
        }
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>, isFile: Bool) throws(FormParser.Failure) {
        guard !bytes.isEmpty else { return }
        if isFile {
            try writer.write(bytes)
        } else {
            fieldTotal += bytes.count
            guard fieldTotal <= fieldLimit else { throw .tooLarge }
            fieldBytes += bytes
        }
    }
}

extension MultipartStream where Writer == FileUploadWriter {
    mutating func removeWriterFiles() { writer.removeAll() }
}

/// Keeps uploaded files in memory: for tests and the fuzz target, which compare with ``FormParser``.
struct MemoryUploadWriter: UploadWriter {
    private(set) var files: [FormData.File] = []
    private var current: (fieldName: String, filename: String, contentType: String?)?
    private var bytes: [UInt8] = []

    mutating func begin(fieldName: String, filename: String, contentType: String?) throws(FormParser.Failure) {
        current = (fieldName, filename, contentType)
        bytes = []
    }

    mutating func write(_ bytes: ArraySlice<UInt8>) throws(FormParser.Failure) { self.bytes += bytes }

    mutating func end() throws(FormParser.Failure) {
        guard let current else { throw .malformed }
        files.append(FormData.File(fieldName: current.fieldName, filename: current.filename, contentType: current.contentType, bytes: bytes))
        self.current = nil
    }
}
