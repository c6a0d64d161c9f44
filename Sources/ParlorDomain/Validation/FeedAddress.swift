import Foundation

/// The rules for the address of a feed (or of a page naming one) that a member pastes.
public enum FeedAddress {
    /// Longer addresses are refused: they are stored and shown.
    public static let maximumLength = 2_048

    /// The address as it will be stored: trimmed, http or https with a host, without user or password
    /// (a feed is public; credentials would be shown to every member), scheme and host lowercased.
    /// A bare "example.org/feed" is taken as https.
    public static func validated(_ text: String) throws(Refusal) -> String {
        try StoredText.refuseControlCharacters(text)
        var raw = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !raw.isEmpty, raw.utf8.count <= maximumLength, !raw.contains(where: \.isWhitespace) else { throw .invalidFeedURL }
        if !raw.contains("://") { raw = "https://" + raw }
        guard var components = URLComponents(string: raw), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil
        else { throw .invalidFeedURL }
        if let port = components.port, !(1...65_535).contains(port) { throw .invalidFeedURL }
        components.scheme = scheme
        components.host = host.lowercased()
        components.fragment = nil
        if components.path.isEmpty { components.path = "/" }
        guard let address = components.string, URL(string: address) != nil else { throw .invalidFeedURL }
        return address
    }
}
