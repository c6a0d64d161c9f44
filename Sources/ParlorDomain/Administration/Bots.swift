import Foundation

/// A bot's key (as its hash: the key itself is shown once, to the administrator who made it) and the address Parlor
/// tells when the bot is mentioned or messaged.
public struct BotCredential: Hashable, Sendable {
    public let keyHash: String
    public let webhookURL: String?

    public init(keyHash: String, webhookURL: String?) {
        self.keyHash = keyHash
        self.webhookURL = webhookURL
    }
}

/// A bot an administrator made: an account that posts through the API with its key.
public struct Bot: Hashable, Sendable {
    public let user: User
    public let webhookURL: String?
    public let createdAt: Date
    /// False once an administrator deactivated it: its key opens nothing, no webhook is told, it is in no room.
    public let isActive: Bool

    public init(user: User, webhookURL: String?, createdAt: Date, isActive: Bool = true) {
        self.user = user
        self.webhookURL = webhookURL
        self.createdAt = createdAt
        self.isActive = isActive
    }
}

/// A webhook's address as an administrator typed it: http or https, a host, at most 2,000 bytes, one line.
public enum WebhookAddress {
    public static let maximumBytes = 2_000

    public static func validated(_ text: String) throws(Refusal) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= maximumBytes, !trimmed.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
              let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { throw .invalidWebhookURL }
        return trimmed
    }
}
