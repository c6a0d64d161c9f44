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
        var text = ""
        text.reserveCapacity(data.utf8.count + 64)
        if let id { text += "id: \(Self.singleLine(id))\n" }
        if let event { text += "event: \(Self.singleLine(event))\n" }
        if let retry { text += "retry: \(max(0, retry))\n" }
        // CR LF, CR and LF all end a line in the event-stream format; each line gets a data: field.
        var line = ""
        var previousWasCR = false
        for scalar in data.unicodeScalars {
            if scalar == "\n" && previousWasCR { previousWasCR = false; continue }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                text += "data: \(line)\n"
                line = ""
            } else {
                line.unicodeScalars.append(scalar)
            }
        }
        text += "data: \(line)\n\n"
        return EncodedEvent(bytes: Array(text.utf8))
    }

    /// A comment line: ignored by browsers, useful to keep a connection busy.
    public static func comment(_ text: String) -> EncodedEvent {
        EncodedEvent(bytes: Array(": \(singleLine(text))\n\n".utf8))
    }

    static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && $0 != "\0" })
    }
}

/// An event already in wire format. Copies share one byte array.
public struct EncodedEvent: Sendable, Equatable {
    /// The exact bytes written to the stream.
    public let bytes: [UInt8]
}
