#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// An HTTP server on 127.0.0.1 that answers each request with what a test scripts: a feed, a 304, a
/// redirect, a body that trickles or never ends. One thread per connection; `stop()` closes everything.
public final class ScriptedServer: Sendable {
    public enum Reply: Sendable {
        /// Status line and headers (without the blank line), then the body; Content-Length is added.
        case answer(status: String, headers: [String] = [], body: [UInt8] = [])
        /// Headers, then `chunk` every `interval`, for as long as the client reads.
        case trickle(headers: [String], chunk: [UInt8], interval: Duration)
    }

    public typealias Handler = @Sendable (_ path: String, _ headers: [String: String]) -> Reply

    public let port: Int
    private let listener: Int32
    private let stopped = Atomic(false)
    private let requests = Mutex<[(path: String, headers: [String: String])]>([])
    private let bodies = Mutex<[[UInt8]]>([])
    private let handler: Handler

    public init(_ handler: @escaping Handler) throws {
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard port > 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Every request so far: its path and headers (names lowercased).
    public var received: [(path: String, headers: [String: String])] { requests.withLock { $0 } }

    /// The body of every request so far (as far as its Content-Length says, at most 64 KB), in order.
    public var receivedBodies: [[UInt8]] { bodies.withLock { $0 } }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        // Up to the blank line; a request's body may arrive with its head.
        func headEnd() -> Int? { head.indices.dropLast(3).first { head[$0...].starts(with: [13, 10, 13, 10]) } }
        while headEnd() == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0, head.count < 65_536 else { return }
            head += buffer[0..<count]
        }
        let end = headEnd() ?? head.count
        var body = Array(head[min(end + 4, head.count)...])
        head = Array(head[..<end])
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        // The rest of the body, as far as Content-Length says.
        let length = min(headers["content-length"].flatMap(Int.init) ?? 0, 65_536)
        while body.count < length {
            let count = recv(connection, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { break }
            body += buffer[0..<count]
        }
        bodies.withLock { $0.append(body) }
        requests.withLock { $0.append((path, headers)) }
        switch handler(path, headers) {
        case .answer(let status, let extra, let body):
            let text = (["HTTP/1.1 \(status)", "Content-Length: \(body.count)", "Connection: close"] + extra).joined(separator: "\r\n") + "\r\n\r\n"
            _ = write(connection, Array(text.utf8) + body)
        case .trickle(let extra, let chunk, let interval):
            let text = (["HTTP/1.1 200 OK", "Connection: close"] + extra).joined(separator: "\r\n") + "\r\n\r\n"
            guard write(connection, Array(text.utf8)) else { return }
            while !stopped.load(ordering: .relaxed), write(connection, chunk) {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
            }
        }
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
