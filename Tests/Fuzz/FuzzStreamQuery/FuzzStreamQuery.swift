// libFuzzer entry: what a page puts in its stream's address and its presence reports: the people whose dots it
// shows (`watch=7,12`) and its own key (`page=`).
import ParlorDomain
import ParlorLive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let watched = PageSubscription.watched(text)
    precondition(watched.count <= PageSubscription.watchLimit)
    precondition(watched.allSatisfy { $0.rawValue > 0 })
    // Every id taken is one the text spelled out.
    for user in watched { precondition(text.split(separator: ",").contains(Substring(String(user.rawValue))) || text.contains(String(user.rawValue))) }
    if VisiblePages.isPageKey(text) {
        precondition(!text.isEmpty && text.utf8.count <= 64)
        precondition(text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x26 && $0 != 0x3D && $0 != 0x2C })
    }
    return 0
}
