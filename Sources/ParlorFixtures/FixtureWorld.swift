import Foundation
import ParlorDomain
import ParlorViews

/// The people, chats and clock every fixture is built from: Friday 20 November 2026, 14:05 in Paris.
public struct FixtureWorld: Sendable {
    /// The fixed "now" every date label is made against.
    public let now: Date
    /// The viewer of every fixture.
    public let ana: User
    /// Ana's contact with initials for an avatar.
    public let ben: User
    /// Ana's contact with a photo.
    public let chloe: User
    /// Parlor Bot.
    public let bot: User
    /// Someone Ana has no chat with yet.
    public let dmitri: User
    /// Ana's view: her zone and locale, the fixed now, a fixed CSRF token.
    public let context: ViewerContext

    /// The world seen by Ana, in `locale` and `timeZone`.
    public init(locale: String = "en_US", timeZone: String = "Europe/Paris") {
        now = Self.date("2026-11-20T13:05:00Z")
        ana = User(id: UserID(1), handle: "ana", displayName: "Ana Lima", timeZoneIdentifier: timeZone, localeIdentifier: locale)
        ben = User(id: UserID(2), handle: "ben", displayName: "Ben Okafor")
        chloe = User(id: UserID(3), handle: "chloe", displayName: "Chloé Martin", avatar: ImageID(31))
        bot = User(id: UserID(4), handle: "parlor", displayName: "Parlor Bot")
        dmitri = User(id: UserID(5), handle: "dmitri", displayName: "Dmitri Volkov")
        context = ViewerContext(viewer: ana, now: now, basePath: "", csrfToken: "csrf-fixture-token")
    }

    /// A fixed instant from an ISO 8601 string (fixtures only; a typo is a programming error).
    public static func date(_ iso: String) -> Date {
        guard let date = try? Date(iso, strategy: .iso8601) else { preconditionFailure("bad fixture date \(iso)") }
        return date
    }

    /// A message in chat `chat` at an ISO 8601 instant, edited at another when `edited` is set:
    /// `world.message(122, chat: 7, from: world.ben, "Platform 4.", at: "2026-11-20T13:02:00Z")`.
    public func message(_ id: Int64, chat: Int64, from sender: User, _ body: String, at iso: String, edited: String? = nil, replyTo: Int64? = nil) -> Message {
        Message(
            id: MessageID(id), chatID: ChatID(chat), senderID: sender.id, body: body, createdAt: Self.date(iso),
            editedAt: edited.map(Self.date), replyTo: replyTo.map { MessageID($0) }
        )
    }

    /// Ana's chats, newest activity first: today, yesterday, this week, this year, last year.
    public var summaries: [ChatSummary] {
        [
            ChatSummary(chatID: ChatID(7), contact: ben, lastMessage: message(120, chat: 7, from: ben, "See you at the station at 6?\nI'll bring the tickets.", at: "2026-11-20T12:58:00Z"), unreadCount: 3, lastActivity: Self.date("2026-11-20T12:58:00Z")),
            ChatSummary(
                chatID: ChatID(13), heading: general, lastMessage: message(119, chat: 13, from: dmitri, "Who is bringing cake on Friday?", at: "2026-11-20T09:12:00Z"),
                lastSenderName: dmitri.displayName, unreadCount: 2, lastActivity: Self.date("2026-11-20T09:12:00Z"), mentionCount: 1
            ),
            ChatSummary(chatID: ChatID(8), contact: chloe, lastMessage: message(118, chat: 8, from: ana, "Merci ! The photos are lovely.", at: "2026-11-19T20:15:00Z"), unreadCount: 0, lastActivity: Self.date("2026-11-19T20:15:00Z")),
            ChatSummary(chatID: ChatID(9), contact: bot, lastMessage: message(90, chat: 9, from: bot, "Welcome to Parlor! Write anything and I will answer.", at: "2026-11-17T09:00:00Z"), unreadCount: 150, lastActivity: Self.date("2026-11-17T09:00:00Z")),
            ChatSummary(chatID: ChatID(10), contact: dmitri, lastMessage: message(40, chat: 10, from: dmitri, "Happy birthday! 🎂", at: "2026-03-02T08:30:00Z"), unreadCount: 1, lastActivity: Self.date("2026-03-02T08:30:00Z")),
            ChatSummary(chatID: ChatID(11), contact: User(id: UserID(6), handle: "eve", displayName: "Eve"), lastMessage: message(12, chat: 11, from: ana, "Long time no see", at: "2025-11-20T18:00:00Z"), unreadCount: 0, lastActivity: Self.date("2025-11-20T18:00:00Z")),
        ]
    }

    /// The open room everyone is in: five hundred people.
    public var general: ChatHeading {
        ChatHeading(kind: .open, name: "General", topic: "Everything and nothing", memberCount: 500, contact: nil)
    }

    /// A closed room of six with a topic, where Ana, Ben, Chloé and Dmitri talk: names on each group of cells.
    public var launchRoom: ConversationSnapshot {
        ConversationSnapshot(
            chatID: ChatID(14),
            heading: ChatHeading(kind: .closed, name: "Launch", topic: "Friday's release: checklist pinned in the wiki", memberCount: 6, contact: nil),
            messages: [
                Message(id: MessageID(138), chatID: ChatID(14), senderID: ana.id, body: "", createdAt: Self.date("2026-11-20T10:50:00Z"), notice: RoomNotice(kind: .added, subject: dmitri.id)),
                Message(id: MessageID(139), chatID: ChatID(14), senderID: ben.id, body: "", createdAt: Self.date("2026-11-20T10:55:00Z"), notice: RoomNotice(kind: .topicChanged, text: "Friday's release: checklist pinned in the wiki")),
                message(140, chat: 14, from: ben, "Build 2.4 is green.", at: "2026-11-20T11:00:00Z"),
                message(141, chat: 14, from: ben, "Release notes next.", at: "2026-11-20T11:01:00Z"),
                message(142, chat: 14, from: chloe, "I'll write them.", at: "2026-11-20T11:03:00Z"),
                message(143, chat: 14, from: dmitri, "Translations are in.", at: "2026-11-20T12:40:00Z"),
                message(144, chat: 14, from: ana, "Thanks all, shipping at 4.", at: "2026-11-20T12:50:00Z", replyTo: 142),
            ],
            people: [ben, chloe, dmitri],
            readers: [Reader(user: ben, lastRead: MessageID(144)), Reader(user: chloe, lastRead: MessageID(144)), Reader(user: dmitri, lastRead: MessageID(143))]
        )
    }

    /// Ana's conversation with Ben over several days, with a reply, an edit, links, and her own messages in each state.
    public var conversationWithBen: ConversationSnapshot {
        ConversationSnapshot(
            chatID: ChatID(7),
            contact: ben,
            messages: [
                message(100, chat: 7, from: ben, "Are you coming to the concert next week?", at: "2026-11-12T18:00:00Z"),
                message(104, chat: 7, from: ana, "Yes! Tickets are at https://tickets.example.com/parlor?show=42.", at: "2026-11-18T10:00:00Z"),
                message(110, chat: 7, from: ben, "Great.\nI'll check the trains tonight.", at: "2026-11-19T21:40:00Z", edited: "2026-11-19T21:45:00Z"),
                message(115, chat: 7, from: ana, "Perfect, thanks", at: "2026-11-20T12:30:00Z", replyTo: 110),
                message(120, chat: 7, from: ben, "See you at the station at 6?\nI'll bring the tickets.", at: "2026-11-20T12:58:00Z"),
                message(121, chat: 7, from: ana, "Sounds good (see www.parlor.example/map).", at: "2026-11-20T13:00:00Z"),
            ],
            pending: [
                PendingMessage(token: "tok-sending", chatID: ChatID(7), body: "On my way", createdAt: Self.date("2026-11-20T13:04:00Z")),
                PendingMessage(token: "tok-failed", chatID: ChatID(7), body: "Running late", createdAt: Self.date("2026-11-20T13:04:30Z"), failure: "Parlor could not reach the server."),
            ],
            contactLastRead: MessageID(115),
            hasOlder: true
        )
    }
}
