// libFuzzer entry: request head fields ("name: value", one a line) as the framing check reads them.
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestFraming(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size).prefix { $0 != 0 }
    var framing = RequestFraming(headStart: UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self), headSize: 0)
    for line in input.split(separator: UInt8(ascii: "\n")) {
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        var name = Array(line[..<colon]).map { CChar(bitPattern: $0) }
        var value = colon < line.endIndex ? Array(line[(colon + 1)...]).map { CChar(bitPattern: $0) } : []
        name.append(0)
        value.append(0)
        name.withUnsafeBufferPointer { name in
            value.withUnsafeBufferPointer { value in framing.add(name: name.baseAddress!, value: value.baseAddress!) }
        }
    }
    if framing.problem(http11: true) == nil {
        precondition(framing.hosts == 1 && framing.contentLengths <= 1 && framing.transferEncodings <= 1)
        precondition(framing.contentLengths == 0 || framing.transferEncodings == 0)
    }
    // The Content-Length reader on the raw bytes: digits only, clamped, never a trap.
    let raw = input.map { CChar(bitPattern: $0) }
    raw.withUnsafeBufferPointer { if let length = RequestFraming.length($0) { precondition(length >= 0) } }
    return 0
}
