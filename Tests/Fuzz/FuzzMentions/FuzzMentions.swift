// libFuzzer entry: the mentions in a message's text.
@testable import ParlorDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMentions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let bytes = Array(text.utf8)
    var previousEnd = 0
    for mention in Mentions.find(in: text) {
        // In order, apart, inside the text, each an "@" and a handle as the sign-up rules take it.
        precondition(mention.range.lowerBound >= previousEnd && mention.range.upperBound <= bytes.count)
        previousEnd = mention.range.upperBound
        precondition(bytes[mention.range.lowerBound] == UInt8(ascii: "@"))
        let typed = String(decoding: bytes[(mention.range.lowerBound + 1)..<mention.range.upperBound], as: UTF8.self)
        let handle = try? Handle.normalized(typed)
        switch mention.target {
        case .person(let name): precondition(handle == name && name != "everyone" && name != "here")
        case .everyone: precondition(handle == "everyone")
        case .here: precondition(handle == "here")
        }
        // A handle never goes on past where the mention ends.
        precondition(mention.range.upperBound == bytes.count || !Mentions.isHandleByte(bytes[mention.range.upperBound]))
    }
    return 0
}
