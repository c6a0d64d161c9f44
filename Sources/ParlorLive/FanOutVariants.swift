import Foundation
import ParlorDomain

/// Everything a message's cell depends on for one viewer besides the message: members with the same variant
/// see the same bytes. The viewer is named only where the cell is theirs alone (their own message, a line
/// about them, a direct chat's "Read"); a viewer the text names by handle sees their name highlighted.
struct CellVariant: Hashable {
    let message: MessageID
    let previous: MessageID?
    let zone: String
    let locale: String
    let viewer: UserID?
    let namedHandle: String?
    let contactRead: MessageID?
}

/// Everything a chat list row shows for one viewer: members of a room whose rows look alike share one. Within
/// one event a message id with its edit, deletion and photo state stands for the message.
struct RowVariant: Hashable {
    let chat: ChatID
    let heading: ChatHeading
    let lastMessage: MessageID?
    let lastChanged: Date?
    let lastDeleted: Bool
    let lastPhoto: PhotoState?
    let lastSenderName: String?
    let lastActivity: Date
    let viewerWroteLast: Bool
    let involvement: Involvement
    /// The unread count where it shows (followed for everything), else whether anything is unread.
    let unread: Int
    let mentions: Int
    let zone: String
    let locale: String
    let isCurrent: Bool
    let movingToTop: Bool

    init(_ summary: ChatSummary, viewer: User, isCurrent: Bool, movingToTop: Bool) {
        chat = summary.chatID
        heading = summary.heading
        lastMessage = summary.lastMessage?.id
        lastChanged = summary.lastMessage?.editedAt
        lastDeleted = summary.lastMessage?.isDeleted ?? false
        lastPhoto = summary.lastMessage?.photo?.state
        lastSenderName = summary.lastSenderName
        lastActivity = summary.lastActivity
        viewerWroteLast = summary.lastMessage?.senderID == viewer.id
        involvement = summary.involvement
        unread = summary.involvement == .everything ? summary.unreadCount : min(summary.unreadCount, 1)
        mentions = summary.mentionCount
        zone = viewer.timeZoneIdentifier
        locale = viewer.localeIdentifier
        self.isCurrent = isCurrent
        self.movingToTop = movingToTop
    }
}
