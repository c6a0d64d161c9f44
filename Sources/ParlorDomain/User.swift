/// A person with an account, or a bot.
public struct User: Hashable, Sendable {
    public let id: UserID
    /// Unique, what others type to find them ("ana").
    public let handle: String
    /// What others see ("Ana Lima").
    public let displayName: String
    /// IANA identifier ("Europe/Paris"), used to format dates for this person.
    public let timeZoneIdentifier: String
    /// Locale identifier ("fr_FR"), used to format dates and words for this person.
    public let localeIdentifier: String
    /// An uploaded picture, if any; otherwise initials are shown.
    public let avatar: ImageID?
    /// A bot (Parlor Bot); shown like anyone else, answered by code.
    public let isBot: Bool

    public init(
        id: UserID,
        handle: String,
        displayName: String,
        timeZoneIdentifier: String = "UTC",
        localeIdentifier: String = "en_US",
        avatar: ImageID? = nil,
        isBot: Bool = false
    ) {
        self.id = id
        self.handle = handle
        self.displayName = displayName
        self.timeZoneIdentifier = timeZoneIdentifier
        self.localeIdentifier = localeIdentifier
        self.avatar = avatar
        self.isBot = isBot
    }
}
