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
        guard let stored = try await store.chat(chat), stored.hasMember(viewer), let contactID = stored.contact(of: viewer),
              let contact = try await store.user(contactID)
        else { return nil }
        let page = try await store.messages(in: chat, before: before, limit: limit)
        let onPage = Set(page.messages.map(\.id))
        var quoted: [Message] = []
        for id in Set(page.messages.compactMap(\.replyTo)) where !onPage.contains(id) {
            if let message = try await store.message(id) { quoted.append(message) }
        }
        return ConversationSnapshot(
            chatID: chat, contact: contact, messages: page.messages, quoted: quoted,
            contactLastRead: try await store.membership(chat, contactID)?.lastRead, hasOlder: page.hasOlder
        )
    }
}
