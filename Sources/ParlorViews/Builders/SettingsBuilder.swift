import Foundation

/// Builds the settings form: the time zones it is given, and the languages Parlor offers, each named
/// in its own language. The zones are injected (the app reads the system's list once; fixtures give a
/// short fixed one), so the same input renders the same bytes on any machine.
public struct SettingsBuilder: Sendable {
    public let context: ViewerContext
    /// The zones a person can choose, in the order shown.
    public let timeZones: [String]

    public init(context: ViewerContext, timeZones: [String]) {
        self.context = context
        self.timeZones = timeZones
    }

    /// The locales a person can choose.
    public static let localeIdentifiers = [
        "en_US", "en_GB", "de_DE", "es_ES", "fr_FR", "it_IT", "nl_NL", "pl_PL", "pt_BR", "sv_SE", "ja_JP", "zh_CN",
    ]

    /// Each locale's name in its own language, looked up once.
    private static let localeNames = Dictionary(uniqueKeysWithValues: localeIdentifiers.map { ($0, name(of: $0)) })

    private static func name(of identifier: String) -> String {
        Locale(identifier: identifier).localizedString(forIdentifier: identifier) ?? identifier
    }

    public func form(displayName: String? = nil, error: String? = nil, saved: Bool = false) -> SettingsFormViewModel {
        let viewer = context.viewer
        // "UTC", every account's default, is not in Foundation's list: without it here the first zone
        // would look chosen and saving would move the person to Africa/Abidjan.
        var zones = timeZones
        if !zones.contains(viewer.timeZoneIdentifier) { zones.insert(viewer.timeZoneIdentifier, at: 0) }
        var locales = Self.localeIdentifiers
        if !locales.contains(viewer.localeIdentifier) { locales.insert(viewer.localeIdentifier, at: 0) }
        return SettingsFormViewModel(
            actionURL: context.paths.settings,
            csrfToken: context.csrfToken,
            displayName: displayName ?? viewer.displayName,
            timeZones: zones.map { SettingsOptionViewModel(value: $0, label: $0.replacingOccurrences(of: "_", with: " "), isSelected: $0 == viewer.timeZoneIdentifier) },
            locales: locales.map { identifier in
                SettingsOptionViewModel(
                    value: identifier, label: Self.localeNames[identifier] ?? Self.name(of: identifier),
                    isSelected: identifier == viewer.localeIdentifier
                )
            },
            dateExample: "\(context.dates.dayLabel(context.now, now: context.now)) \(context.dates.timeOfDay(context.now)) · \(context.dates.fullDate(context.now))",
            errorMessage: error,
            savedMessage: saved && error == nil ? "Saved. Dates now read as below." : nil
        )
    }
}
