/// Any event, for the code that watches all of them: the event handler and sources such as the chatbot.
public enum DomainEvent: Hashable, Sendable {
    case chat(ChatEvent)
    case message(MessageEvent)
    case user(UserEvent)
    case feed(FeedEvent)
    case presence(PresenceEvent)
    case account(AccountEvent)
}

extension DomainEvent {
    /// The event's name without its values ("message.sent"), for logs: never a body or a password hash.
    public var kind: String {
        switch self {
        case .chat(let event): "chat." + Self.caseName(event)
        case .message(let event): "message." + Self.caseName(event)
        case .user(let event): "user." + Self.caseName(event)
        case .feed(let event): "feed." + Self.caseName(event)
        case .presence(let event): "presence." + Self.caseName(event)
        case .account(let event): "account." + Self.caseName(event)
        }
    }

    /// Whether every instance's pages must learn of the event although nothing was stored: someone typing. A bus
    /// shared by several instances carries these too (lost ones matter little: they are shown for seconds).
    public var isShared: Bool {
        guard case .presence(let event) = self else { return false }
        switch event {
        case .typing, .presenceChanged, .presenceRefreshed: return true
        case .reportingTyping, .typingRefused, .reportingPresence, .refreshingPresence: return false
        }
    }

    /// Whether the event says a change was stored (not an intent, nor a refusal): the change every instance
    /// must learn of. A store shared by several instances writes exactly these to its event log, in the
    /// change's transaction; the rest concern only the pages of the instance where they happened.
    public var isStoredChange: Bool {
        switch self {
        case .message(.sent), .message(.edited), .message(.deleted), .message(.userRead), .message(.photoProcessed), .message(.reacted),
             .message(.previewed),
             .chat(.created), .chat(.membersChanged), .chat(.roomRenamed), .chat(.involvementChanged), .user(.signedUp), .user(.profileUpdated), .user(.accountChanged),
             .feed(.subscribed), .feed(.unsubscribed), .feed(.retried), .feed(.checked):
            true
        case .message(.sending), .message(.failedSending), .message(.editing), .message(.failedEditing), .message(.deleting),
             .message(.failedDeleting), .message(.userReads), .message(.processingPhoto), .message(.reacting), .message(.failedReacting),
             .message(.previewing), .message(.removingPreview), .message(.failedRemovingPreview),
             .chat(.creating), .chat(.creatingDirect), .chat(.creatingRoom), .chat(.createFailed),
             .chat(.changingMembers), .chat(.memberChangeFailed), .chat(.renamingRoom), .chat(.renameFailed), .chat(.changingInvolvement), .user(.signingUp), .user(.signUpFailed), .user(.updatingProfile),
             .user(.profileUpdateFailed), .user(.changingAccount), .user(.accountChangeFailed),
             .feed(.subscribing), .feed(.subscribeFailed), .feed(.unsubscribing), .feed(.retrying), .feed(.requestFailed),
             .feed(.checking), .presence:
            false
        case .account(let event): AccountLogEntry(event) != nil
        }
    }

    private static func caseName(_ value: some Any) -> String {
        let text = String(describing: value)
        return String(text.prefix { $0 != "(" })
    }
}
