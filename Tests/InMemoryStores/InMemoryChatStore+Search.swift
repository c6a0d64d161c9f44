import Foundation
import ParlorDomain

extension InMemoryChatStore: SearchStore {
    /// Reads every message of the viewer's chats: the reference the other stores' indexes are tested against.
    /// Best match ranks by how many times the terms' words occur, then newest first.
    public func search(_ search: MessageSearch) async throws -> SearchResults {
        guard !search.isEmpty else { return .none }
        return state.withLock { state in
            let senders = Set(search.from.compactMap { state.userIDsByHandle[$0] })
            if !search.from.isEmpty, senders.isEmpty { return .none }
            var found: [(message: Message, score: Int)] = []
            for chatID in state.chatIDsByUser[search.viewer] ?? [] {
                guard let chat = state.chats[chatID], chat.hasMember(search.viewer) else { continue }
                if !search.rooms.isEmpty, !search.namesRoom(chat.name) { continue }
                for id in state.messageIDsByChat[chatID] ?? [] {
                    guard let message = state.messages[id], Self.passesFilters(message, search, senders: senders) else { continue }
                    let words = SearchText.words(message.body)
                    let text = message.body.lowercased()
                    guard search.terms.allSatisfy({ $0.matches(words: words, text: text) }) else { continue }
                    found.append((message, Self.score(words, search.terms)))
                }
            }
            let sorted: [Message]
            switch search.order {
            case .newest:
                let cut = search.olderThan ?? MessageID(Int64.max)
                sorted = found.map(\.message).filter { $0.id < cut }.sorted { $0.id > $1.id }
            case .best:
                sorted = Array(found.sorted { ($0.score, $0.message.id) > ($1.score, $1.message.id) }.map(\.message).dropFirst(search.offset))
            }
            let page = Array(sorted.prefix(search.limit))
            var headings: [ChatID: ChatHeading] = [:]
            for id in Set(page.map(\.chatID)) {
                guard let chat = state.chats[id] else { continue }
                headings[id] = chat.heading(contact: chat.contact(of: search.viewer).flatMap { state.users[$0] }, others: Self.others(in: chat, for: search.viewer, state))
            }
            let people = Dictionary(uniqueKeysWithValues: Set(page.map(\.senderID)).compactMap { id in state.users[id].map { (id, $0) } })
            return SearchResults(messages: page, hasMore: sorted.count > search.limit, headings: headings, people: people)
        }
    }

    private static func passesFilters(_ message: Message, _ search: MessageSearch, senders: Set<UserID>) -> Bool {
        guard message.notice == nil, !message.isDeleted else { return false }
        if !senders.isEmpty, !senders.contains(message.senderID) { return false }
        if search.hasPhoto, message.photo == nil { return false }
        if let before = search.sentBefore, message.createdAt >= before { return false }
        if let from = search.sentFrom, message.createdAt < from { return false }
        return true
    }

    private static func score(_ words: [String], _ terms: [SearchTerm]) -> Int {
        var score = 0
        for term in terms {
            guard case .prefix(let wanted) = term, let first = wanted.first else { continue }
            score += words.count { $0.hasPrefix(first) }
        }
        return score
    }
}
