// Server-Sent Events in wire format, and the ring that holds one copy of an event for every stream that
// sends it: named by the HTTP server that streams them and by the live pages that encode them once.
/// One Server-Sent Event. Encode it once with ``encoded`` to send the same bytes to many streams.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `id:` field, echoed back by a reconnecting browser as `Last-Event-ID`.
    public var id: String?
    /// The `event:` field (the name a browser listener subscribes to).
    public var event: String?
    /// The payload; each line becomes its own `data:` line.
    public var data: String
    /// The `retry:` field in milliseconds.
    public var retry: Int?

    public init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The wire bytes, ready to be shared by every stream that sends them.
    public var encoded: EncodedEvent {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.utf8.count + 64)
        if let id { Self.appendField("id: ", Self.singleLine(id), to: &bytes) }
        if let event { Self.appendField("event: ", Self.singleLine(event), to: &bytes) }
        if let retry { Self.appendField("retry: ", String(max(0, retry)), to: &bytes) }
        // CR LF, CR and LF all end a line in the event-stream format; each line gets a data:
        // field. Whole runs between line ends are copied at once.
        var text = data
        text.withUTF8 { utf8 in
            var start = 0
            var index = 0
            while true {
                let atEnd = index == utf8.count
                if atEnd || utf8[index] == UInt8(ascii: "\n") || utf8[index] == UInt8(ascii: "\r") {
                    Self.appendField("data: ", UnsafeBufferPointer(rebasing: utf8[start..<index]), to: &bytes)
                    if atEnd { break }
                    if utf8[index] == UInt8(ascii: "\r"), index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "\n") { index += 1 }
                    start = index + 1
                }
                index += 1
            }
        }
        bytes.append(UInt8(ascii: "\n"))
        return EncodedEvent(bytes: bytes)
    }

    private static func appendField(_ name: StaticString, _ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendField(name, $0, to: &bytes) }
    }

    private static func appendField(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: value)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A comment line: ignored by browsers, useful to keep a connection busy.
    public static func comment(_ text: String) -> EncodedEvent {
        EncodedEvent(bytes: Array(": \(singleLine(text))\n\n".utf8))
    }

    /// A `retry:` field alone: it dispatches no event, but sets how long the browser waits before it
    /// reconnects the next time the stream ends.
    public static func retry(milliseconds: Int) -> EncodedEvent {
        EncodedEvent(bytes: Array("retry: \(max(0, milliseconds))\n\n".utf8))
    }

    package static func singleLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") || $0 == 0 }) else { return text }
        return String(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && $0 != "\0" })
    }
}

/// An event already in wire format. Copies share one byte array.
public struct EncodedEvent: Sendable, Equatable {
    /// Where a ring holds an event's bytes.
    package struct Sharing: Sendable {
        package let ring: EventRing
        package let ticket: EventRing.Ticket
    }

    /// The exact bytes written to the stream.
    public let bytes: [UInt8]
    /// Where an ``EventRing`` holds these bytes, once ``EventRing/share(_:)`` put them there.
    package let sharing: Sharing?

    package init(bytes: [UInt8], sharing: Sharing? = nil) {
        self.bytes = bytes
        self.sharing = sharing
    }

    /// Whether an ``EventRing`` holds these bytes.
    public var isShared: Bool { sharing != nil }

    /// Two events are equal when their bytes are: sharing does not change what is sent.
    public static func == (lhs: EncodedEvent, rhs: EncodedEvent) -> Bool { lhs.bytes == rhs.bytes }
}
