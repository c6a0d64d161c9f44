/// Why Parlor refused to do what a person asked, in words for that person. Refusals are checked before
/// anything is written, so a refused request changes nothing.
public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
    case emptyMessage
    case messageTooLong(limit: Int)
    case invalidText
    /// The text holds a NUL or another control character (tab, line feed and carriage return are fine).
    case controlCharacter
    case chatWithYourself
    case unknownHandle(String)
    case invalidHandle
    case handleTaken(String)
    case invalidDisplayName
    /// A chat with this person exists already; the person is sent there.
    case chatExists(ChatID)
    /// The chat, message or person is not there, or not visible to whoever asked: the same words for both,
    /// so ids cannot be probed.
    case notFound
    case notYourMessage
    /// The message was deleted: there is nothing left to edit.
    case messageDeleted
    /// A feed's address that is not http or https, or not an address at all.
    case invalidFeedURL
    /// The chat follows this address already.
    case alreadySubscribed
    case tooManyFeeds(limit: Int)
    /// A room's name that is empty, longer than ``RoomName/maximumLength`` or more than one line.
    case invalidRoomName
    /// A topic longer than ``RoomTopic/maximumLength`` or more than one line.
    case invalidTopic
    /// Members are added to and taken out of closed rooms only: an open room has everyone, a direct chat its people.
    case membersFixed
    /// Only a room has a name and a topic to change.
    case notARoom
    /// `@everyone` or `@here` in a room of more members than that.
    case tooManyToMention(limit: Int)
    /// The same report again sooner than its rules allow ("is typing" at most every three seconds).
    case tooFrequent
    /// Who is typing is not shown in a room of more members than that.
    case tooManyToShowTyping(limit: Int)
    /// The store could not do it (a full disk, a lost connection); nothing was changed.
    case invalidReaction
    case tooManyReactions(limit: Int)
    /// This Parlor takes new people through its join link only.
    case invitationRequired
    /// The code names no join link: mistyped, or the link was rotated since.
    case joinLinkInvalid
    case joinLinkExpired
    case joinLinkUsedUp
    /// Only an administrator may do that (or, for rooms, the Parlor lets only administrators create them).
    case administratorsOnly
    /// The change would leave the Parlor without an active administrator.
    case lastAdministrator
    /// An administrator deactivates others, never themselves.
    case deactivatingYourself
    /// A webhook's address that is not http or https with a host, or longer than 2,000 bytes.
    case invalidWebhookURL
    case unavailable

    /// The sentence shown where the person typed.
    public var message: String {
        switch self {
        case .emptyMessage: "Write something before sending."
        case .messageTooLong(let limit): "Messages can be at most \(limit) characters long."
        case .invalidText: "That text could not be read; it is not valid UTF-8."
        case .controlCharacter: "That text contains an invisible control character. Remove it and try again."
        case .chatWithYourself: "You cannot start a chat with yourself."
        case .unknownHandle(let handle): "Nobody is called @\(handle)."
        case .invalidHandle: "A handle has 3 to 20 letters, digits or underscores."
        case .handleTaken(let handle): "@\(handle) is taken; try another handle."
        case .invalidDisplayName: "A display name has 1 to 50 characters."
        case .chatExists: "You already have a chat with this person."
        case .notFound: "That chat or message does not exist."
        case .notYourMessage: "You can only change your own messages."
        case .messageDeleted: "That message was deleted."
        case .invalidFeedURL: "Paste the address of a feed or of a page, starting with http:// or https://."
        case .alreadySubscribed: "This chat follows that feed already."
        case .tooManyFeeds(let limit): "A chat can follow at most \(limit) feeds."
        case .invalidRoomName: "A room's name has 1 to \(RoomName.maximumLength) characters on one line."
        case .invalidTopic: "A topic has at most \(RoomTopic.maximumLength) characters on one line."
        case .membersFixed: "Only a closed room's members change: everyone is in an open room, and a direct chat keeps its people."
        case .notARoom: "A direct chat has no name or topic to change."
        case .tooManyToMention(let limit): "@everyone and @here call at most \(limit) people; this room has more. Name the people you need."
        case .tooFrequent: "That came too soon after the last one; wait a moment."
        case .tooManyToShowTyping(let limit): "Who is typing is shown in rooms of at most \(limit) members."
        case .invalidReaction: "A reaction is an emoji or up to \(ReactionText.maximumLength) characters on one line."
        case .tooManyReactions(let limit): "A message can have at most \(limit) different reactions; add one of those."
        case .invitationRequired: "This Parlor takes new people by invitation. Ask an administrator for its join link."
        case .joinLinkInvalid: "That join link does not work: it may have been mistyped or replaced. Ask an administrator for the current one."
        case .joinLinkExpired: "That join link has expired. Ask an administrator for a new one."
        case .joinLinkUsedUp: "That join link has been used as many times as it allows. Ask an administrator for a new one."
        case .administratorsOnly: "Only an administrator can do that."
        case .lastAdministrator: "This Parlor needs an active administrator: make someone else one first."
        case .deactivatingYourself: "You cannot deactivate your own account."
        case .invalidWebhookURL: "A webhook is an http:// or https:// address of at most 2,000 characters, without a user name or password."
        case .unavailable: "Parlor could not save that just now. Please try again."
        }
    }

    public var description: String { message }
}
