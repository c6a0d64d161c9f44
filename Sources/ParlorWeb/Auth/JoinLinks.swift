import Foundation
import ParlorDomain

/// Join links and passwords made for people: by an administrator on the Administration page, by an operator with
/// `parlor admin`.
public enum JoinLinks {
    /// A new join link made `now`, open for `days` (none: until replaced) and for `uses` accounts (none: any number),
    /// with a code of 144 random bits.
    public static func make(now: Date, days: Int?, uses: Int?) -> JoinLink {
        JoinLink(code: Sodium.randomToken(bytes: 18), createdAt: now, expiresAt: days.map { now.addingTimeInterval(Double($0) * 86_400) }, usesLimit: uses)
    }

    /// A password an operator hands on once (128 random bits), for the person to change in their settings.
    public static func temporaryPassword() -> String {
        Sodium.randomToken(bytes: 16)
    }
}
