import Foundation

/// The reads of the page people load most, answered on the calling thread when the store can do so at once
/// (SQLite, with a connection free): a web server's polling thread serves the page without handing it to
/// another thread and back. A store that cannot answer without waiting has none of this.
public protocol ImmediateReads: Sendable {
    /// The session with this id hash and its person, while it lasts; may wait briefly for another such read.
    func liveSessionNow(idHash: String, now: Date) throws -> LiveSession?
    /// What ``ChatStore/chatsScreen(for:open:before:limit:)`` gives, or nil when no connection is free at once.
    func chatsScreenNow(for viewer: UserID, open chat: ChatID?, before: MessageID?, limit: Int) throws -> ChatsScreen?
}
