// libFuzzer entry: the client's address from a peer, the trusted proxies and X-Forwarded-For lines, all from
// the input (lines: the peer, then the trusted addresses separated by spaces, then one field line each).
// Whatever they are: no trap; an untrusted peer is the answer; any other answer is nil or an address as the
// peer's text is written, that the peer or one of the lines named; the joined header is the lines in order.
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForwardedChain(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let peer = lines.first else { return 0 }
    let trusted = Set((lines.count > 1 ? lines[1] : "").split(separator: " ").map(String.init))
    let fieldLines = Array(lines.dropFirst(2))

    let answer = ClientAddress.resolve(peer: peer, forwardedFor: fieldLines, trusted: trusted)
    if !trusted.contains(peer) || trusted.isEmpty {
        precondition(answer == peer, "an untrusted peer is the client")
    } else if let answer, answer != peer {
        precondition(ClientAddress.canonical(answer) == answer, "\(answer) is not written as an address")
        let named = fieldLines.joined(separator: ",").split(separator: ",").compactMap { ClientAddress.canonical($0.trimmingSpaces) }
        precondition(named.contains(answer), "\(answer) came from nowhere")
    }
    _ = ClientAddress.lastElement(fieldLines)

    var headers = HTTPHeaders()
    for line in fieldLines { headers.add("X-Forwarded-For", line) }
    precondition(headers["x-forwarded-for"] == (fieldLines.isEmpty ? nil : fieldLines.joined(separator: ", ")))
    precondition(headers.repeatedSingleton == nil)
    return 0
}
