import Foundation
import ParlorDomain
import ParlorPush

/// What Parlor's service worker shows for one push: the notification's title and text, the page a click opens,
/// and a tag (one notification per chat: a newer message replaces the older one's).
public struct PushPayload: Codable, Sendable, Hashable {
    public let title: String
    public let body: String
    public let url: String
    public let tag: String

    public init(title: String, body: String, url: String, tag: String) {
        self.title = title
        self.body = body
        self.url = url
        self.tag = tag
    }

    /// Most characters of a message shown in a notification.
    public static let excerptLimit = 160

    /// The notification for `message`, by `sender`, in `chat`: its `words` (or "New message in …" when `isPrivate`).
    /// `pathPrefix` is where Parlor is served ("" or "/chat").
    public static func message(
        _ message: Message, words: String, sender: String, chat: Chat, isPrivate: Bool, pathPrefix: String
    ) -> PushPayload {
        let place: String? = chat.kind == .direct ? nil : "#" + (chat.name ?? "room")
        let url = "\(pathPrefix)/rooms/\(chat.id.rawValue)?around=\(message.id.rawValue)#message-\(message.id.rawValue)"
        let tag = "chat-\(chat.id.rawValue)"
        if isPrivate {
            return PushPayload(title: "Parlor", body: place.map { "New message in \($0)" } ?? "New message in a direct chat", url: url, tag: tag)
        }
        let title = place.map { "\(sender) in \($0)" } ?? sender
        return PushPayload(title: title, body: excerpt(words, of: message), url: url, tag: tag)
    }

    /// The message's words (as people read them: no formatting marks) on one line, cut at a space near
    /// ``excerptLimit`` characters; "Photo" for a photo alone.
    static func excerpt(_ text: String, of message: Message) -> String {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if words.isEmpty { return message.photo == nil ? "Message" : "Photo" }
        guard words.count > excerptLimit else { return words }
        let cut = words.prefix(excerptLimit)
        let atSpace = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return String(atSpace.count > excerptLimit / 2 ? atSpace : cut) + "…"
    }

    /// The JSON the service worker reads, within what one push can carry.
    public var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(self)).map(Array.init) ?? []
        guard bytes.count > WebPushEncryption.plaintextLimit else { return bytes }
        // A title or a path far longer than Parlor makes: the notification without its words.
        return (try? encoder.encode(PushPayload(title: String(title.prefix(100)), body: "", url: url, tag: tag))).map(Array.init) ?? []
    }
}
