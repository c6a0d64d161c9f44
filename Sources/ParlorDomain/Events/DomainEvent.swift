/// Any event, for the code that watches all of them: the event handler and sources such as the chatbot.
public enum DomainEvent: Hashable, Sendable {
    case chat(ChatEvent)
    case message(MessageEvent)
    case user(UserEvent)
}
