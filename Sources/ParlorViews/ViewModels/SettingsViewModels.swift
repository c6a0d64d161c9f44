import ParlorTemplates

/// `/settings`.
public struct SettingsPageViewModel: Renderable, Hashable {
    public static let templateName = "settings"

    public let layout: PageLayoutViewModel
    public let form: SettingsFormViewModel
    public let password: PasswordFormViewModel
    public let avatarForm: AvatarFormViewModel
    public let notifications: NotificationSettingsViewModel?
    /// Set for an administrator: the link to the Administration page.
    public let administrationURL: String?

    public init(
        layout: PageLayoutViewModel, form: SettingsFormViewModel, password: PasswordFormViewModel, avatarForm: AvatarFormViewModel,
        notifications: NotificationSettingsViewModel? = nil, administrationURL: String? = nil
    ) {
        self.administrationURL = administrationURL
        self.layout = layout
        self.form = form
        self.password = password
        self.avatarForm = avatarForm
        self.notifications = notifications
    }

    public static let templateFields = TemplateFields<SettingsPageViewModel>(
        .object("layout", \.layout),
        .object("form", \.form),
        .object("password", \.password),
        .object("avatarForm", \.avatarForm),
        .object("notifications", \.notifications),
        .text("administrationURL", \.administrationURL)
    )
}

/// The person's photo: the one they have (or their initials), and a file field for a new one.
public struct AvatarFormViewModel: TemplateContext, Hashable {
    public let actionURL: String
    public let csrfToken: String
    public let avatar: AvatarViewModel
    /// "JPEG, PNG, WebP or GIF, up to 25 MB. It is cropped to a square."
    public let hint: String
    /// Why the photo was not taken.
    public let errorMessage: String?
    /// "Photo changed." after a change.
    public let changedMessage: String?
    /// Where "Remove photo" posts; nil while the person has none.
    public let removeURL: String?

    public init(
        actionURL: String, csrfToken: String, avatar: AvatarViewModel, hint: String, errorMessage: String?, changedMessage: String?,
        removeURL: String? = nil
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.avatar = avatar
        self.hint = hint
        self.errorMessage = errorMessage
        self.changedMessage = changedMessage
        self.removeURL = removeURL
    }

    public static let templateFields = TemplateFields<AvatarFormViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .object("avatar", \.avatar),
        .text("hint", \.hint),
        .text("errorMessage", \.errorMessage),
        .text("changedMessage", \.changedMessage),
        .text("removeURL", \.removeURL)
    )
}

/// Changing the password: the current one, a new one, and what went wrong at which field.
public struct PasswordFormViewModel: TemplateContext, Hashable {
    public let actionURL: String
    public let csrfToken: String
    /// Why the current password was not accepted.
    public let currentPasswordError: String?
    /// Why the new password was not accepted.
    public let newPasswordError: String?
    /// "Password changed. …" after a change.
    public let changedMessage: String?
    /// "At least 8 characters."
    public let newPasswordHint: String

    public init(
        actionURL: String, csrfToken: String, currentPasswordError: String?, newPasswordError: String?, changedMessage: String?,
        newPasswordHint: String
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.currentPasswordError = currentPasswordError
        self.newPasswordError = newPasswordError
        self.changedMessage = changedMessage
        self.newPasswordHint = newPasswordHint
    }

    public static let templateFields = TemplateFields<PasswordFormViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("currentPasswordError", \.currentPasswordError),
        .text("newPasswordError", \.newPasswordError),
        .text("changedMessage", \.changedMessage),
        .text("newPasswordHint", \.newPasswordHint)
    )
}

/// The profile form: display name, time zone and locale, with what went wrong or that it was saved.
public struct SettingsFormViewModel: Renderable, Hashable {
    public static let templateName = "partials/settings-form"

    public let actionURL: String
    public let csrfToken: String
    public let displayName: String
    /// The zones by region ("Europe"), each with its offset now ("Paris (UTC+01:00)").
    public let timeZoneGroups: [TimeZoneGroupViewModel]
    public let locales: [SettingsOptionViewModel]
    /// How a date reads with the current choices ("Today at 14:05 · Monday 23 November 2026").
    public let dateExample: String
    /// The language of the example when it is not the page's English ("ja-JP").
    public let dateLanguage: String?
    public let errorMessage: String?
    /// "Saved." after a change.
    public let savedMessage: String?

    public init(
        actionURL: String, csrfToken: String, displayName: String, timeZoneGroups: [TimeZoneGroupViewModel],
        locales: [SettingsOptionViewModel], dateExample: String, dateLanguage: String? = nil, errorMessage: String?, savedMessage: String?
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.displayName = displayName
        self.timeZoneGroups = timeZoneGroups
        self.locales = locales
        self.dateExample = dateExample
        self.dateLanguage = dateLanguage
        self.errorMessage = errorMessage
        self.savedMessage = savedMessage
    }

    public static let templateFields = TemplateFields<SettingsFormViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("displayName", \.displayName),
        .list("timeZoneGroups", \.timeZoneGroups),
        .list("locales", \.locales),
        .text("dateExample", \.dateExample),
        .text("dateLanguage", \.dateLanguage),
        .text("errorMessage", \.errorMessage),
        .text("savedMessage", \.savedMessage)
    )
}

/// The time zones of one region, an `<optgroup>`.
public struct TimeZoneGroupViewModel: TemplateContext, Hashable {
    /// "Europe", "America", "Other".
    public let label: String
    public let zones: [SettingsOptionViewModel]

    public init(label: String, zones: [SettingsOptionViewModel]) {
        self.label = label
        self.zones = zones
    }

    public static let templateFields = TemplateFields<TimeZoneGroupViewModel>(
        .text("label", \.label),
        .list("zones", \.zones)
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
