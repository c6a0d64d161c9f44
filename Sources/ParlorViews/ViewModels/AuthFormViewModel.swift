import ParlorTemplates

/// The sign-in or sign-up form, with what the person typed (never the password) and what went wrong.
public struct AuthFormViewModel: Renderable, Hashable {
    public static let templateName = "partials/auth-form"

    /// "Sign in" or "Create your account".
    public let heading: String
    public let actionURL: String
    public let csrfToken: String
    public let handle: String
    /// Shown on sign-up only.
    public let showsDisplayName: Bool
    public let displayName: String
    /// "That handle is taken." ; nil when there is nothing to say.
    public let errorMessage: String?
    /// Which field the error is about, so it can be focused and described ("handle", "password").
    public let errorField: String?
    public let submitLabel: String
    /// "New here? Create an account" / "Have an account? Sign in".
    public let alternatePrompt: String
    public let alternateLabel: String
    public let alternateURL: String
    /// The password rule, shown under the field on sign-up ("At least 10 characters").
    public let passwordHint: String?
    /// False where nobody can sign up here (invitation only, a join link that no longer works): the reason and the
    /// sign-in link, without fields to fill in for nothing.
    public let showsFields: Bool

    public init(
        heading: String, actionURL: String, csrfToken: String, handle: String, showsDisplayName: Bool, displayName: String,
        errorMessage: String?, errorField: String?, submitLabel: String, alternatePrompt: String, alternateLabel: String,
        alternateURL: String, passwordHint: String?, showsFields: Bool = true
    ) {
        self.showsFields = showsFields
        self.heading = heading
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.handle = handle
        self.showsDisplayName = showsDisplayName
        self.displayName = displayName
        self.errorMessage = errorMessage
        self.errorField = errorField
        self.submitLabel = submitLabel
        self.alternatePrompt = alternatePrompt
        self.alternateLabel = alternateLabel
        self.alternateURL = alternateURL
        self.passwordHint = passwordHint
    }

    public static let templateFields = TemplateFields<AuthFormViewModel>(
        .text("heading", \.heading),
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("handle", \.handle),
        .flag("showsDisplayName", \.showsDisplayName),
        .text("displayName", \.displayName),
        .text("errorMessage", \.errorMessage),
        .text("errorField", \.errorField),
        .text("submitLabel", \.submitLabel),
        .text("alternatePrompt", \.alternatePrompt),
        .text("alternateLabel", \.alternateLabel),
        .text("alternateURL", \.alternateURL),
        .text("passwordHint", \.passwordHint),
        .flag("showsFields", \.showsFields)
    )
}
