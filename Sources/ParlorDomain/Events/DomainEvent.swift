/// Any event, for the code that watches all of them: the event handler and sources such as the chatbot.
public enum DomainEvent: Hashable, Sendable {
    case chat(ChatEvent)
    case message(MessageEvent)
    case user(UserEvent)
    case feed(FeedEvent)
}

extension DomainEvent {
    /// The event's name without its values ("message.sent"), for logs: never a body or a password hash.
    public var kind: String {
        switch self {
        case .chat(let event): "chat." + Self.caseName(event)
        case .message(let event): "message." + Self.caseName(event)
        case .user(let event): "user." + Self.caseName(event)
        case .feed(let event): "feed." + Self.caseName(event)
        }
    }

    private static func caseName(_ value: some Any) -> String {
        let text = String(describing: value)
        return String(text.prefix { $0 != "(" })
    }
}
