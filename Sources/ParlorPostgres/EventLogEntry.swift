import Logging
import ParlorDomain
import PostgresNIO

/// A stored event (one whose `DomainEvent.isStoredChange` holds) as the log keeps it: its kind and the ids of
/// what it is about (and a send's token). The
/// values themselves are read from the store when the entry is applied, on every instance.
enum EventLogEntry: Hashable, Sendable {
    case userSignedUp(UserID)
    case profileUpdated(UserID)
    /// Deactivated (out of `rooms`) or active again (in `rooms`).
    case accountChanged(UserID, isActive: Bool, rooms: [ChatID])
    case chatCreated(ChatID)
    case membersChanged(ChatID, by: UserID, added: [UserID], removed: [UserID])
    case roomRenamed(ChatID)
    case involvementChanged(ChatID, member: UserID)
    case messageSent(MessageID, token: String)
    case messageEdited(MessageID)
    case messageDeleted(MessageID)
    case photoProcessed(MessageID)
    /// A message's link preview came, or went.
    case previewed(MessageID)
    /// A message's reactions changed (they are read when the entry is applied).
    case messageReacted(MessageID, chat: ChatID)
    case userRead(chat: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID)
    case feedSubscribed(FeedSubscriptionID)
    /// The subscription is gone by then: its chat is kept, which is what the chat's feed pages need.
    case feedUnsubscribed(FeedSubscriptionID, chat: ChatID, subscriber: UserID)
    case feedRetried(FeedSubscriptionID)
    case feedChecked(FeedSubscriptionID)
    /// Not a stored change: someone typing, written by the bus itself so every instance shows it.
    case typing(TypingReport)
    /// Not stored either: a person's presence on an instance, and an instance saying again who is there.
    case presence(PresenceReport)
    case presenceRefresh([PresenceReport])
    /// Sessions, passwords, roles, settings, keys, push subscriptions and preferences: the values travel in the entry.
    case account(AccountLogEntry)

    /// The kind of `messageSent`, for statements that write its entry themselves.
    static let sentKind = "message.sent"

    /// The kinds whose first id is a message's (read with the entry).
    static let messageKinds = [sentKind, "message.edited", "message.deleted", "message.photoProcessed", "message.previewed"]

    var kind: String {
        switch self {
        case .userSignedUp: "user.signedUp"
        case .profileUpdated: "user.profileUpdated"
        case .accountChanged: "user.accountChanged"
        case .chatCreated: "chat.created"
        case .membersChanged: "chat.membersChanged"
        case .roomRenamed: "chat.roomRenamed"
        case .involvementChanged: "chat.involvementChanged"
        case .messageSent: Self.sentKind
        case .messageEdited: "message.edited"
        case .messageDeleted: "message.deleted"
        case .photoProcessed: "message.photoProcessed"
        case .previewed: "message.previewed"
        case .messageReacted: "message.reacted"
        case .userRead: "message.userRead"
        case .feedSubscribed: "feed.subscribed"
        case .feedUnsubscribed: "feed.unsubscribed"
        case .feedRetried: "feed.retried"
        case .feedChecked: "feed.checked"
        case .typing: "presence.typing"
        case .presence: "presence.state"
        case .presenceRefresh: "presence.refresh"
        case .account(let entry): entry.kind
        }
    }

    var ids: [Int64] {
        switch self {
        case .userSignedUp(let user), .profileUpdated(let user): [user.rawValue]
        case .accountChanged(let user, let isActive, let rooms): [user.rawValue, isActive ? 1 : 0] + rooms.map(\.rawValue)
        case .chatCreated(let chat), .roomRenamed(let chat): [chat.rawValue]
        case .involvementChanged(let chat, let member): [chat.rawValue, member.rawValue]
        case .membersChanged(let chat, let by, let added, let removed):
            [chat.rawValue, by.rawValue, Int64(added.count)] + added.map(\.rawValue) + removed.map(\.rawValue)
        case .messageSent(let message, _), .messageEdited(let message), .messageDeleted(let message), .photoProcessed(let message),
             .previewed(let message):
            [message.rawValue]
        case .messageReacted(let message, let chat): [message.rawValue, chat.rawValue]
        case .userRead(let chat, let reader, let previous, let upTo): [chat.rawValue, reader.rawValue, previous?.rawValue ?? 0, upTo.rawValue]
        case .feedSubscribed(let id), .feedRetried(let id), .feedChecked(let id): [id.rawValue]
        case .feedUnsubscribed(let id, let chat, let subscriber): [id.rawValue, chat.rawValue, subscriber.rawValue]
        case .typing(let report): [report.chatID.rawValue, report.userID.rawValue, report.isTyping ? 1 : 0]
        case .presence(let report): Self.ids(report)
        // The instance, then each person's three numbers.
        case .presenceRefresh(let reports): [reports.first?.instance ?? 0] + reports.flatMap { Array(Self.ids($0).dropFirst()) }
        case .account(let entry): entry.ids
        }
    }

    var token: String? {
        if case .messageSent(_, let token) = self { return token }
        return nil
    }

    /// The entry a row holds; nil for a kind or a shape this version does not know (a newer instance wrote
    /// it), which is passed over.
    init?(kind: String, ids: [Int64], token: String?) {
        func id(_ index: Int) -> Int64? { ids.indices.contains(index) ? ids[index] : nil }
        guard let first = id(0) else { return nil }
        if AccountLogEntry.isAccountKind(kind) {
            guard let event = AccountLogEntry.event(kind: kind, ids: ids), let entry = AccountLogEntry(event) else { return nil }
            self = .account(entry)
            return
        }
        switch kind {
        case "user.signedUp": self = .userSignedUp(UserID(first))
        case "user.profileUpdated": self = .profileUpdated(UserID(first))
        case "user.accountChanged":
            guard let active = id(1) else { return nil }
            self = .accountChanged(UserID(first), isActive: active == 1, rooms: ids.dropFirst(2).map { ChatID($0) })
        case "chat.created": self = .chatCreated(ChatID(first))
        case "chat.roomRenamed": self = .roomRenamed(ChatID(first))
        case "chat.involvementChanged":
            guard let member = id(1) else { return nil }
            self = .involvementChanged(ChatID(first), member: UserID(member))
        case "chat.membersChanged":
            guard let by = id(1), let count = id(2), count >= 0, count <= Int64(ids.count - 3) else { return nil }
            let people = ids.dropFirst(3).map { UserID($0) }
            self = .membersChanged(ChatID(first), by: UserID(by), added: Array(people.prefix(Int(count))), removed: Array(people.dropFirst(Int(count))))
        case "message.sent": self = .messageSent(MessageID(first), token: token ?? "")
        case "message.edited": self = .messageEdited(MessageID(first))
        case "message.deleted": self = .messageDeleted(MessageID(first))
        case "message.photoProcessed": self = .photoProcessed(MessageID(first))
        case "message.previewed": self = .previewed(MessageID(first))
        case "message.reacted":
            guard let chat = id(1) else { return nil }
            self = .messageReacted(MessageID(first), chat: ChatID(chat))
        case "message.userRead":
            guard let reader = id(1), let previous = id(2), let upTo = id(3) else { return nil }
            self = .userRead(chat: ChatID(first), reader: UserID(reader), previous: previous > 0 ? MessageID(previous) : nil, upTo: MessageID(upTo))
        case "feed.subscribed": self = .feedSubscribed(FeedSubscriptionID(first))
        case "feed.unsubscribed":
            guard let chat = id(1), let subscriber = id(2) else { return nil }
            self = .feedUnsubscribed(FeedSubscriptionID(first), chat: ChatID(chat), subscriber: UserID(subscriber))
        case "feed.retried": self = .feedRetried(FeedSubscriptionID(first))
        case "feed.checked": self = .feedChecked(FeedSubscriptionID(first))
        case "presence.typing":
            guard let user = id(1), let typing = id(2) else { return nil }
            self = .typing(TypingReport(chatID: ChatID(first), userID: UserID(user), isTyping: typing == 1))
        case "presence.state":
            guard let report = Self.report(instance: first, ids.dropFirst()) else { return nil }
            self = .presence(report)
        case "presence.refresh":
            let people = ids.dropFirst()
            guard people.count.isMultiple(of: 3) else { return nil }
            let reports = stride(from: people.startIndex, to: people.endIndex, by: 3).compactMap { Self.report(instance: first, people[$0..<$0 + 3]) }
            guard reports.count * 3 == people.count else { return nil }
            self = .presenceRefresh(reports)
        default: return nil
        }
    }

    /// The entry of an event the bus writes itself (``DomainEvent/isShared``); nil for any other.
    init?(shared event: DomainEvent) {
        switch event {
        case .presence(.typing(let report)): self = .typing(report)
        case .presence(.presenceChanged(let report)): self = .presence(report)
        case .presence(.presenceRefreshed(let reports)) where !reports.isEmpty: self = .presenceRefresh(reports)
        default: return nil
        }
    }

    /// A presence report as the log keeps it: the instance, the person, their state, whether they appear offline.
    private static func ids(_ report: PresenceReport) -> [Int64] {
        [report.instance, report.userID.rawValue, report.state.rawValue, report.appearsOffline ? 1 : 0]
    }

    private static func report(instance: Int64, _ numbers: ArraySlice<Int64>) -> PresenceReport? {
        guard numbers.count == 3, let user = numbers.first, let state = LocalPresence(rawValue: numbers[numbers.startIndex + 1]) else { return nil }
        return PresenceReport(userID: UserID(user), instance: instance, state: state, appearsOffline: numbers[numbers.startIndex + 2] == 1)
    }

    /// Appends the entry of a stored account event, inside the caller's transaction.
    static func append(_ event: AccountEvent, _ connection: PostgresConnection, logger: Logger) async throws {
        guard let entry = AccountLogEntry(event) else { return }
        try await EventLogEntry.account(entry).append(connection, logger: logger)
    }

    /// Appends the entry to the log, inside the caller's transaction: it commits with the change or not at all.
    func append(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("INSERT INTO eventLog (kind, ids, token) VALUES (\(kind), \(ids), \(token))", logger: logger)
    }
}
