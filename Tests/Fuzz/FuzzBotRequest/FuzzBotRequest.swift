// libFuzzer entry: what a bot sends the API (JSON bodies) and what its webhook answers (text or HTML made a reply).
import Foundation
import ParlorBots
import ParlorFeeds

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBotRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Read as each body the API takes: a value within its limits, or a refusal with words; never a trap.
    do {
        let message = try BotRequests.decode(BotRequests.NewMessage.self, from: bytes)
        precondition(message.replyTo.map { $0 > 0 } ?? true)
        precondition(message.token.map { !$0.isEmpty && $0.utf8.count <= 100 } ?? true)
    } catch {
        precondition(!error.message.isEmpty && !error.message.contains("\u{0}"))
    }
    _ = try? BotRequests.decode(BotRequests.Edit.self, from: bytes)
    _ = try? BotRequests.decode(BotRequests.Reaction.self, from: bytes)
    if let read = try? BotRequests.decode(BotRequests.Read.self, from: bytes) { precondition(read.upTo > 0) }
    if let direct = try? BotRequests.decode(BotRequests.Direct.self, from: bytes) { precondition((1...40).contains(direct.handle.utf8.count)) }
    // As a webhook's answer: a reply has words, trimmed; nothing otherwise.
    for isHTML in [false, true] {
        if let text = HTMLText.answer(bytes, isHTML: isHTML) {
            precondition(!text.isEmpty && text == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
    return 0
}
