import Foundation
import ParlorDomain

/// Who is looking and how they read dates: everything a builder needs besides the domain values.
/// "Now" is injected so the same inputs always give the same view models (and the same HTML).
public struct ViewerContext: Sendable {
    public let viewer: User
    public let now: Date
    public let dates: DateLabels
    public let paths: Paths
    /// The session's CSRF token, put into every form; empty without a session.
    public let csrfToken: String

    public init(viewer: User, now: Date, timeZone: TimeZone, locale: Locale, basePath: String = "", csrfToken: String = "") {
        self.viewer = viewer
        self.now = now
        self.dates = DateLabels(locale: locale, timeZone: timeZone)
        self.paths = Paths(basePath: basePath)
        self.csrfToken = csrfToken
    }

    /// A context in the viewer's own time zone and locale (UTC and en_US when those are unknown).
    public init(viewer: User, now: Date, basePath: String = "", csrfToken: String = "") {
        self.init(
            viewer: viewer,
            now: now,
            timeZone: TimeZone(identifier: viewer.timeZoneIdentifier) ?? TimeZone(identifier: "UTC")!,
            locale: Locale(identifier: viewer.localeIdentifier),
            basePath: basePath,
            csrfToken: csrfToken
        )
    }
}
