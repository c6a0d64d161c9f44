import Foundation
import ParlorDomain

/// Who is looking and how they read dates: everything a builder needs besides the domain values.
/// "Now" is injected so the same inputs always give the same view models (and the same HTML).
public struct ViewerContext: Sendable {
    public let viewer: User
    public let now: Date
    public let dates: DateLabels
    /// Where the viewer's recent days begin around `now`, computed once for everything this context builds.
    public let days: DateLabels.Days
    public let paths: Paths
    /// The session's CSRF token, put into every form; empty without a session.
    public let csrfToken: String

    /// A context with these labels (from a ``DateLabels/Cache``, on a server).
    public init(viewer: User, now: Date, dates: DateLabels, basePath: String = "", csrfToken: String = "") {
        self.viewer = viewer
        self.now = now
        self.dates = dates
        self.days = dates.days(at: now)
        self.paths = Paths(basePath: basePath)
        self.csrfToken = csrfToken
    }

    public init(viewer: User, now: Date, timeZone: TimeZone, locale: Locale, basePath: String = "", csrfToken: String = "") {
        self.init(viewer: viewer, now: now, dates: DateLabels(locale: locale, timeZone: timeZone), basePath: basePath, csrfToken: csrfToken)
    }

    /// A context in the viewer's own time zone and locale (UTC and en_US when those are unknown), with
    /// labels from `cache` when given.
    public init(viewer: User, now: Date, basePath: String = "", csrfToken: String = "", cache: DateLabels.Cache? = nil) {
        let dates = cache?.labels(locale: viewer.localeIdentifier, timeZone: viewer.timeZoneIdentifier)
            ?? DateLabels(
                locale: Locale(identifier: viewer.localeIdentifier),
                timeZone: TimeZone(identifier: viewer.timeZoneIdentifier) ?? TimeZone(identifier: "UTC")!
            )
        self.init(viewer: viewer, now: now, dates: dates, basePath: basePath, csrfToken: csrfToken)
    }
}
