import ParlorTemplates

/// `/settings`.
public struct SettingsPageViewModel: Renderable, Hashable {
    public static let templateName = "settings"

    public let layout: PageLayoutViewModel
    public let form: SettingsFormViewModel

    public init(layout: PageLayoutViewModel, form: SettingsFormViewModel) {
        self.layout = layout
        self.form = form
    }

    public static let templateFields = TemplateFields<SettingsPageViewModel>(
        .object("layout", \.layout),
        .object("form", \.form)
    )
}

/// The profile form: display name, time zone and locale, with what went wrong or that it was saved.
public struct SettingsFormViewModel: Renderable, Hashable {
    public static let templateName = "partials/settings-form"

    public let actionURL: String
    public let csrfToken: String
    public let displayName: String
    public let timeZones: [SettingsOptionViewModel]
    public let locales: [SettingsOptionViewModel]
    /// How a date reads with the current choices ("Today at 14:05 · Monday 23 November 2026").
    public let dateExample: String
    public let errorMessage: String?
    /// "Saved." after a change.
    public let savedMessage: String?

    public init(
        actionURL: String, csrfToken: String, displayName: String, timeZones: [SettingsOptionViewModel],
        locales: [SettingsOptionViewModel], dateExample: String, errorMessage: String?, savedMessage: String?
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.displayName = displayName
        self.timeZones = timeZones
        self.locales = locales
        self.dateExample = dateExample
        self.errorMessage = errorMessage
        self.savedMessage = savedMessage
    }

    public static let templateFields = TemplateFields<SettingsFormViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("displayName", \.displayName),
        .list("timeZones", \.timeZones),
        .list("locales", \.locales),
        .text("dateExample", \.dateExample),
        .text("errorMessage", \.errorMessage),
        .text("savedMessage", \.savedMessage)
    )
}

/// One choice of a `<select>`.
public struct SettingsOptionViewModel: TemplateContext, Hashable {
    public let value: String
    public let label: String
    public let isSelected: Bool

    public init(value: String, label: String, isSelected: Bool) {
        self.value = value
        self.label = label
        self.isSelected = isSelected
    }

    public static let templateFields = TemplateFields<SettingsOptionViewModel>(
        .text("value", \.value),
        .text("label", \.label),
        .flag("isSelected", \.isSelected)
    )
}
