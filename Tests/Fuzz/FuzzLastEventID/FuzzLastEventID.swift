// libFuzzer entry: the Last-Event-ID a reconnecting page sends.
import ServerSentEvents

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLastEventID(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let position = StreamPosition.parse(text) {
        // Only what Parlor writes reads as a position, and it reads back as itself.
        precondition(position.sequence >= 1)
        precondition(position.id == text)
        precondition(StreamPosition.parse(position.id) == position)
    }
    return 0
}
