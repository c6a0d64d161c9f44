/// Builds the sign-in and sign-up forms. The password is never put back into a form.
public struct AuthFormBuilder: Sendable {
    public let paths: Paths
    public let csrfToken: String

    public init(paths: Paths, csrfToken: String) {
        self.paths = paths
        self.csrfToken = csrfToken
    }

    /// The field an error is about.
    public enum Field: String, Sendable {
        case handle, displayName, password
    }

    public static let minimumPasswordLength = 10

    public func signIn(handle: String = "", error: String? = nil, field: Field? = nil) -> AuthFormViewModel {
        AuthFormViewModel(
            heading: "Sign in to Parlor",
            actionURL: paths.signIn,
            csrfToken: csrfToken,
            handle: handle,
            showsDisplayName: false,
            displayName: "",
            errorMessage: error,
            errorField: error == nil ? nil : field?.rawValue,
            submitLabel: "Sign in",
            alternatePrompt: "New here?",
            alternateLabel: "Create an account",
            alternateURL: paths.signUp,
            passwordHint: nil
        )
    }

    /// The sign-up form of a Parlor on its first run: whoever fills it in runs it.
    public func firstAdministrator(handle: String = "", displayName: String = "", error: String? = nil, field: Field? = nil) -> AuthFormViewModel {
        signUp(handle: handle, displayName: displayName, error: error, field: field, heading: "Create the administrator account", submit: "Create administrator account")
    }

    /// The sign-up form reached through the join link with `code`.
    public func joining(code: String, handle: String = "", displayName: String = "", error: String? = nil, field: Field? = nil) -> AuthFormViewModel {
        signUp(handle: handle, displayName: displayName, error: error, field: field, heading: "Join this Parlor", action: paths.join(code))
    }

    /// Where nobody can sign up: `reason`, and the way to sign in.
    public func signUpClosed(_ reason: String) -> AuthFormViewModel {
        AuthFormViewModel(
            heading: "Create your Parlor account", actionURL: paths.signUp, csrfToken: csrfToken, handle: "", showsDisplayName: false, displayName: "",
            errorMessage: reason, errorField: nil, submitLabel: "Create account", alternatePrompt: "Already have an account?", alternateLabel: "Sign in",
            alternateURL: paths.signIn, passwordHint: nil, showsFields: false
        )
    }

    public func signUp(
        handle: String = "", displayName: String = "", error: String? = nil, field: Field? = nil, heading: String = "Create your Parlor account",
        submit: String = "Create account", action: String? = nil
    ) -> AuthFormViewModel {
        AuthFormViewModel(
            heading: heading,
            actionURL: action ?? paths.signUp,
            csrfToken: csrfToken,
            handle: handle,
            showsDisplayName: true,
            displayName: displayName,
            errorMessage: error,
            errorField: error == nil ? nil : field?.rawValue,
            submitLabel: submit,
            alternatePrompt: "Already have an account?",
            alternateLabel: "Sign in",
            alternateURL: paths.signIn,
            passwordHint: "At least \(Self.minimumPasswordLength) characters."
        )
    }
}
