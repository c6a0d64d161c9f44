import ParlorDomain

/// Reads what a conversation shows for one viewer: a page of history, the messages its replies quote,
/// the contact and how far they have read. Used for full pages and for pages that (re)connect.
public struct ConversationReader: Sendable {
    let store: any ChatStore

    public init(store: any ChatStore) {
        self.store = store
    }

    /// Up to `limit` messages before `before` (the newest when nil); nil when `viewer` is not a member.
    public func snapshot(_ chat: ChatID, viewer: UserID, before: MessageID? = nil, limit: Int = EventHandler.historyPageSize) async throws
        -> ConversationSnapshot?
    {
        try await store.conversation(chat, viewer: viewer, before: before, limit: limit)
    }
}
