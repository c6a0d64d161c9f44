import Foundation

extension Collection<ChatSummary> {
    /// The chat list's order: newest activity first, then the newer chat. Sorted by index on the two keys, so
    /// each summary (a contact and a message, hundreds of bytes) is moved once rather than at every step.
    public func newestActivityFirst() -> [ChatSummary] {
        let summaries = Array(self)
        let keys = summaries.map { ($0.lastActivity.timeIntervalSince1970, $0.chatID.rawValue) }
        return keys.indices.sorted { keys[$0] > keys[$1] }.map { summaries[$0] }
    }
}
