import Foundation

/// Builds the settings form: every time zone Foundation knows, and the languages Parlor offers,
/// each named in its own language.
public struct SettingsBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// The locales a person can choose.
    public static let localeIdentifiers = [
        "en_US", "en_GB", "de_DE", "es_ES", "fr_FR", "it_IT", "nl_NL", "pl_PL", "pt_BR", "sv_SE", "ja_JP", "zh_CN",
    ]

    public func form(displayName: String? = nil, error: String? = nil, saved: Bool = false) -> SettingsFormViewModel {
        let viewer = context.viewer
        // "UTC", every account's default, is not in Foundation's list: without it here the first zone
        // would look chosen and saving would move the person to Africa/Abidjan.
        var zones = TimeZone.knownTimeZoneIdentifiers.sorted()
        if !zones.contains(viewer.timeZoneIdentifier) { zones.insert(viewer.timeZoneIdentifier, at: 0) }
        var locales = Self.localeIdentifiers
        if !locales.contains(viewer.localeIdentifier) { locales.insert(viewer.localeIdentifier, at: 0) }
        return SettingsFormViewModel(
            actionURL: context.paths.settings,
            csrfToken: context.csrfToken,
            displayName: displayName ?? viewer.displayName,
            timeZones: zones.map { SettingsOptionViewModel(value: $0, label: $0.replacingOccurrences(of: "_", with: " "), isSelected: $0 == viewer.timeZoneIdentifier) },
            locales: locales.map { identifier in
                let name = Locale(identifier: identifier).localizedString(forIdentifier: identifier) ?? identifier
                return SettingsOptionViewModel(value: identifier, label: name, isSelected: identifier == viewer.localeIdentifier)
            },
            dateExample: "\(context.dates.dayLabel(context.now, now: context.now)) \(context.dates.timeOfDay(context.now)) · \(context.dates.fullDate(context.now))",
            errorMessage: error,
            savedMessage: saved && error == nil ? "Saved. Dates now read as below." : nil
        )
    }
}
