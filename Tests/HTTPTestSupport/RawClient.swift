// A blocking HTTP/1.1 client over a plain socket, so tests control exactly what is sent,
// in how many pieces, on which connection, and how fast it is read.
#if canImport(Glibc)
import Glibc
#endif

public struct ClientError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A parsed response.
public struct TestResponse {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// One TCP connection to 127.0.0.1.
public final class RawClient {
    public let fd: Int32
    private var pending: [UInt8] = []

    /// Connects; a read gives up after `timeout` seconds, as a `WaitBound` counts them, so no test can hang.
    /// The default is generous: a test that means "quickly" measures it itself.
    /// `receiveBuffer`, when given, is set before connecting, so the window the peer sees
    /// never grows past it (a reader that stops reading then fills up quickly).
    public convenience init(port: UInt16, timeout: Double = 40, receiveBuffer: Int32? = nil) throws {
        self.init(connected: try Self.connect(port: port, receiveBuffer: receiveBuffer))
        setTimeout(timeout)
    }

    /// Takes ownership of a connected socket; only a live descriptor ever reaches `deinit`,
    /// which closes it exactly once.
    private init(connected fd: Int32) {
        self.fd = fd
    }

    private static func connect(port: UInt16, receiveBuffer: Int32?) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let failure = errno
            Glibc.close(fd)
            throw ClientError(description: "connect: \(failure)")
        }
        return fd
    }

    deinit { Glibc.close(fd) }

    private var timeout: Duration = .seconds(20)

    public func setTimeout(_ seconds: Double) {
        timeout = .milliseconds(Int64(seconds * 1000))
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Ends the connection in both directions now (the descriptor itself is closed by `deinit`).
    public func close() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw ClientError(description: "send failed: \(errno)") }
            offset += written
        }
    }

    /// Reads more bytes; returns false when the peer closed (or reset) the connection.
    /// Never blocks a thread: the cooperative pool is small and the server's own `async`
    /// handlers need it.
    private func fill() async throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var bound = WaitBound(timeout, checkingEvery: .milliseconds(1))
        while true {
            let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                pending.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 || errno == ECONNRESET { return false }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw ClientError(description: "recv: \(errno)") }
            guard !bound.isSpent() else { throw ClientError(description: "timed out waiting for the server") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    private func takeLine() async throws -> String {
        while true {
            if let index = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<index])
                pending.removeFirst(index + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try await fill() else { throw ClientError(description: "connection closed mid-line") }
        }
    }

    private func take(_ count: Int) async throws -> [UInt8] {
        while pending.count < count {
            guard try await fill() else { throw ClientError(description: "connection closed mid-body") }
        }
        let bytes = Array(pending[..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// Reads one response. `head` skips the body (for HEAD requests).
    public func readResponse(head: Bool = false) async throws -> TestResponse {
        let statusLine = try await takeLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError(description: "bad status line: \(statusLine)") }
        var headers: [(String, String)] = []
        while true {
            let line = try await takeLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(" ")))
        }
        let response = TestResponse(status: status, headers: headers, body: [])
        if head || status == 304 || status == 204 { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            return TestResponse(status: status, headers: headers, body: try await take(length))
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                let size = Int(try await takeLine().split(separator: ";")[0], radix: 16) ?? 0
                if size == 0 { _ = try await takeLine(); break }
                body += try await take(size)
                _ = try await takeLine()
            }
            return TestResponse(status: status, headers: headers, body: body)
        }
        return response
    }

    /// Reads the head of a streaming response, leaving its body unread.
    public func readStreamHead() async throws -> TestResponse {
        try await readResponse(head: true)
    }

    private var decoded: [UInt8] = []
    public private(set) var streamEnded = false

    /// Moves whole chunks of a chunked body from `pending` to `decoded`.
    private func decodeChunks() {
        while !streamEnded, let lineEnd = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let sizeText = String(decoding: pending[..<lineEnd], as: UTF8.self).trimmingCharacters("\r")
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
            let start = lineEnd + 1
            guard pending.count >= start + size + 2 else { return }
            decoded.append(contentsOf: pending[start..<start + size])
            pending.removeFirst(start + size + 2)
            if size == 0 { streamEnded = true }
        }
    }

    /// Reads a chunked stream body until `marker` has arrived; returns the decoded text up to
    /// and including it.
    public func read(until marker: String) async throws -> String {
        let needle = Array(marker.utf8)
        while true {
            decodeChunks()
            if let range = decoded.firstRange(of: needle) {
                let text = String(decoding: decoded[..<range.upperBound], as: UTF8.self)
                decoded.removeFirst(range.upperBound)
                return text
            }
            if streamEnded { throw ClientError(description: "stream ended before \(marker.debugDescription) arrived") }
            guard try await fill() else { throw ClientError(description: "closed before \(marker.debugDescription) arrived") }
        }
    }

    /// Whether `marker` has arrived in a chunked stream body, looking only at what the socket holds now (never
    /// waits); the text up to it is then taken, as ``read(until:)`` takes it. For a loop that moves a test clock on
    /// until something shows.
    public func hasReceived(_ marker: String) throws -> Bool {
        _ = try takeWhatArrived()
        guard let range = decoded.firstRange(of: Array(marker.utf8)) else { return false }
        decoded.removeFirst(range.upperBound)
        return true
    }

    /// Whether a chunked stream body has ended (its last chunk, or the connection closed), looking only at what the
    /// socket holds now (never waits).
    public func hasEnded() throws -> Bool {
        try !takeWhatArrived() || streamEnded
    }

    /// Moves what the socket holds now into the decoded body; false when the peer closed the connection.
    private func takeWhatArrived() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var open = true
        while true {
            let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 { pending.append(contentsOf: chunk[0..<count]); continue }
            if count == 0 || errno == ECONNRESET { open = false; break }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw ClientError(description: "recv: \(errno)") }
            break
        }
        decodeChunks()
        return open
    }

    /// Reads a chunked stream body to its end; returns the decoded rest.
    public func readToEnd() async throws -> String {
        while true {
            decodeChunks()
            if streamEnded {
                defer { decoded = [] }
                return String(decoding: decoded, as: UTF8.self)
            }
            guard try await fill() else { throw ClientError(description: "closed without the last chunk") }
        }
    }

    /// Whether the server closed the connection (reads until end of stream or timeout).
    public func waitForClose() async -> Bool {
        while true {
            do { if try await !fill() { return true } } catch { return false }
        }
    }

    /// Request text with the usual head fields.
    public static func request(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n"
        if let body { text += body }
        return text
    }

    /// Sends one request and reads its response on this connection.
    public func exchange(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) async throws -> TestResponse {
        try send(Self.request(method, target, headers: headers, body: body))
        return try await readResponse(head: method == "HEAD")
    }
}

extension String {
    func trimmingCharacters(_ character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}

/// Waits until `condition` holds, checking every `every` (5 ms unless told) for at most `seconds`, as a `WaitBound`
/// counts them: the one waiting loop of the tests.
public func eventually(
    within seconds: Double = 20, every interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    var bound = WaitBound(.milliseconds(Int64(seconds * 1000)), checkingEvery: interval)
    while true {
        if try await condition() { return true }
        if bound.isSpent() { break }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

extension Sequence {
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// The value of a metric without labels in a server's `/metrics` (Prometheus text), or nil when it has none.
public func metricValue(_ name: String, port: UInt16) async throws -> Double? {
    let text = try await RawClient(port: port).exchange("GET", "/metrics").text
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
    }
    return nil
}
