import Foundation
import ParlorDomain

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

    /// The zones by region, regions and cities in alphabetical order, each labelled with its offset from UTC
    /// now ("Buenos Aires, Argentina (UTC−03:00)"). "UTC", every account's default, is not in Foundation's
    /// list: it comes first, and so does a zone the viewer has that the list lacks, or the first zone would
    /// look chosen and saving would move the person there.
    public func timeZoneGroups() -> [TimeZoneGroupViewModel] {
        let chosen = TimeZoneNames.current(context.viewer.timeZoneIdentifier)
        var leading = ["UTC"]
        if chosen != "UTC", !timeZones.contains(chosen) { leading.append(chosen) }
        var regions: [String: [SettingsOptionViewModel]] = [:]
        var other: [SettingsOptionViewModel] = []
        for identifier in timeZones where !leading.contains(identifier) {
            let parts = identifier.split(separator: "/").map { $0.replacingOccurrences(of: "_", with: " ") }
            if parts.count > 1 {
                let place = parts.dropFirst().reversed().joined(separator: ", ")
                regions[parts[0], default: []].append(option(identifier, place))
            } else {
                other.append(option(identifier, identifier))
            }
        }
        func sorted(_ options: [SettingsOptionViewModel]) -> [SettingsOptionViewModel] { options.sorted { $0.label < $1.label } }
        var groups = [TimeZoneGroupViewModel(label: "Universal", zones: leading.map { option($0, $0 == "UTC" ? "Coordinated Universal Time" : $0) })]
        groups += regions.keys.sorted().map { TimeZoneGroupViewModel(label: $0, zones: sorted(regions[$0] ?? [])) }
        if !other.isEmpty { groups.append(TimeZoneGroupViewModel(label: "Other", zones: sorted(other))) }
        return groups
    }

    private func option(_ identifier: String, _ place: String) -> SettingsOptionViewModel {
        let seconds = TimeZone(identifier: identifier)?.secondsFromGMT(for: context.now) ?? 0
        return SettingsOptionViewModel(
            value: identifier, label: "\(place) (\(Self.offset(seconds)))", isSelected: identifier == TimeZoneNames.current(context.viewer.timeZoneIdentifier)
        )
    }

    /// "UTC+01:00", "UTC−03:30" (a minus sign, as people write it), "UTC+00:00".
    public static func offset(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        let hours = String(minutes / 60), rest = String(minutes % 60)
        return "UTC" + (seconds < 0 ? "\u{2212}" : "+") + String(repeating: "0", count: 2 - min(2, hours.count)) + hours + ":"
            + String(repeating: "0", count: 2 - rest.count) + rest
    }

    /// Which field of the password form an error belongs to.
    public enum PasswordField: Sendable { case current, new }

    /// The password form, with an error at one field or the news that it changed.
    public func passwordForm(error: String? = nil, at field: PasswordField = .current, changed: Bool = false) -> PasswordFormViewModel {
        PasswordFormViewModel(
            actionURL: context.paths.settings + "/password",
            csrfToken: context.csrfToken,
            currentPasswordError: field == .current ? error : nil,
            newPasswordError: field == .new ? error : nil,
            changedMessage: changed && error == nil ? "Password changed. Every other browser signed in as you was signed out." : nil,
            newPasswordHint: "At least \(AuthFormBuilder.minimumPasswordLength) characters."
        )
    }

    /// The photo form, with why a photo was refused or the news that it changed.
    public func avatarForm(
        error: String? = nil, changed: Bool = false, removed: Bool = false, maximumBytes: Int = ImageLimits().maximumBytes
    ) -> AvatarFormViewModel {
        AvatarFormViewModel(
            actionURL: context.paths.avatarAction,
            csrfToken: context.csrfToken,
            avatar: AvatarBuilder.avatar(for: context.viewer, paths: context.paths),
            hint: "\(ImageFormat.acceptedNames), up to \(maximumBytes / 1_000_000) MB. It is cropped to a square.",
            errorMessage: error,
            changedMessage: error != nil ? nil
                : changed ? "Photo changed. Everyone who chats with you sees it now."
                : removed ? "Photo removed. You show as your initials again." : nil,
            removeURL: context.viewer.avatar == nil ? nil : context.paths.removeAvatarAction
        )
    }

    public func form(displayName: String? = nil, error: String? = nil, saved: Bool = false) -> SettingsFormViewModel {
        let viewer = context.viewer
        var locales = Self.localeIdentifiers
        if !locales.contains(viewer.localeIdentifier) { locales.insert(viewer.localeIdentifier, at: 0) }
        return SettingsFormViewModel(
            actionURL: context.paths.settings,
            csrfToken: context.csrfToken,
            displayName: displayName ?? viewer.displayName,
            timeZoneGroups: timeZoneGroups(),
            locales: locales.map { identifier in
                SettingsOptionViewModel(
                    value: identifier, label: Self.localeNames[identifier] ?? Self.name(of: identifier),
                    isSelected: identifier == viewer.localeIdentifier
                )
            },
            dateExample: "\(context.dates.dayLabel(context.now, now: context.now)) \(context.dates.timeOfDay(context.now)) · \(context.dates.fullDate(context.now))",
            dateLanguage: context.dates.language,
            errorMessage: error,
            savedMessage: saved && error == nil ? "Saved. Dates now read as below." : nil
        )
    }
}

extension SettingsBuilder {
    /// What Settings says of notifications: `browsers` told by Web Push, the person's `preferences`, and what
    /// just happened (`saved`).
    public func notifications(
        browsers: [PushSubscription], preferences: NotificationPreferences, serverKey: String, saved: NotificationsSaved? = nil
    ) -> NotificationSettingsViewModel {
        let paths = context.paths
        let rows = browsers.map { browser in
            PushBrowserViewModel(
                id: "push-browser-\(browser.id)", subscriptionID: String(browser.id), label: browser.label, added: "added " + context.dates.listDate(browser.createdAt, days: context.days),
                removeURL: paths.pushUnsubscribe, csrfToken: context.csrfToken
            )
        }
        let message: String? = switch saved {
        case .preferences: "Notification settings saved."
        case .removed: "That browser no longer gets notifications."
        case .tested(let count): count == 1 ? "A test notification is on its way to 1 browser." : "A test notification is on its way to \(count) browsers."
        case nil: nil
        }
        return NotificationSettingsViewModel(
            csrfToken: context.csrfToken, subscribeURL: paths.pushSubscriptions, unsubscribeURL: paths.pushUnsubscribe, serverKey: serverKey,
            browsers: rows, emptyMessage: browsers.isEmpty ? "No browser gets notifications from Parlor yet." : nil,
            testURL: browsers.isEmpty ? nil : paths.pushTest, preferencesURL: paths.notificationPreferences,
            isPrivate: preferences.isPrivate, appearsOffline: preferences.appearsOffline, savedMessage: message
        )
    }

    /// What the notification settings say happened.
    public enum NotificationsSaved: Hashable, Sendable {
        case preferences
        case removed
        case tested(Int)
    }
}
