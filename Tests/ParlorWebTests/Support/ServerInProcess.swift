import Foundation
import HTTPTestSupport
import MicroHTTP

/// A visitor's requests answered by the server's router in this process, without a socket (``HTTPServer/answer(_:)``).
struct ServerInProcess: InProcessExchange {
    let server: HTTPServer

    func exchange(_ method: String, _ target: String, headers: [String], body: [UInt8]) async throws -> TestResponse {
        var fields: HTTPHeaders = ["Host": "127.0.0.1"]
        for line in headers {
            guard let colon = line.firstIndex(of: ":") else { throw ClientError(description: "a header without a colon: \(line)") }
            fields.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let answer = await server.answer(InProcessRequest(method: method, target: target, headers: fields, body: body))
        return TestResponse(status: answer.status, headers: answer.headers.map { ($0.name, $0.value) }, body: answer.body)
    }
}

extension RunningParlor {
    /// A visitor whose requests are answered in process; its event streams go over the server's port.
    func visitor() -> Visitor {
        Visitor(port: port, inProcess: ServerInProcess(server: server))
    }
}
