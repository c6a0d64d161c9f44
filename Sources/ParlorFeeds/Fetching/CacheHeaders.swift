import Foundation

/// The few response headers that say when to ask a server again, read from hostile text: every number is
/// range-checked before arithmetic and clamped to a week.
public enum CacheHeaders {
    public static let week = 7 * 24 * 3_600

    /// `max-age=N` of one `Cache-Control` value, in seconds.
    public static func maxAge(_ value: String) -> Int? {
        for directive in value.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age" { return seconds(String(parts[1])) }
        }
        return nil
    }

    /// `Retry-After`: delta seconds, or an HTTP date, as seconds from `now`.
    public static func retryAfter(_ value: String, now: Date) -> Int? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = seconds(text) { return seconds }
        guard let date = FeedDates.parse(text) else { return nil }
        let left = date.timeIntervalSince(now)
        guard left.isFinite else { return nil }
        return Int(min(max(left, 0), Double(week)))
    }

    /// A count of seconds: digits only (quotes tolerated); a number too long to hold is a week.
    public static func seconds(_ text: String) -> Int? {
        let digits = text.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard digits.utf8.count <= 7, let value = Int(digits) else { return week }
        return min(value, week)
    }
}
