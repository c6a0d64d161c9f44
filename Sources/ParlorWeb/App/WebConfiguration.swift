import Foundation

/// How `parlor serve` runs the chat: where its files are, who may be trusted, how long things last.
public struct WebConfiguration: Sendable {
    public var publicFolder = "Public"
    public var templatesFolder = "Templates"
    public var reloadTemplates = false
    /// Mounts `/gallery` (every screen in every state, for designers).
    public var gallery = false
    /// Peers whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed (a reverse proxy on the machine).
    public var trustedProxies: Set<String> = []
    /// How long a sign-in lasts.
    public var sessionLifetime: TimeInterval = 30 * 24 * 60 * 60
    public var signInLimits = SignInThrottle.Limits()
    /// What hashing a password costs; `.interactive` unless a test suite needs thousands of cheap accounts.
    public var passwordCost = PasswordHasher.Cost.interactive

    public init() {}
}
