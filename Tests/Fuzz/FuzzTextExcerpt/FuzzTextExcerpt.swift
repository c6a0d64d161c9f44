// libFuzzer entry: one-line excerpts of message text (the chat list, toasts). The first byte is the limit.
@testable import ParlorViews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextExcerpt(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let limit = Int(data[0])
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let excerpt = TextPreview.excerpt(text, limit: limit)
    precondition(excerpt.count <= limit + 1, "at most the limit and an ellipsis")
    precondition(!excerpt.contains(where: \.isNewline))
    // ASCII text takes a byte-by-byte path: it must cut exactly as the general one.
    precondition(excerpt == TextPreview.generalExcerpt(text, limit: limit))
    let name = String(text.prefix(40)), handle = String(text.dropFirst(40).prefix(20))
    precondition(Initials.of(displayName: name, handle: handle) == Initials.generalInitials(displayName: name, handle: handle))
    return 0
}
