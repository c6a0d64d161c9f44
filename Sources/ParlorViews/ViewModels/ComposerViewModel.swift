import ParlorTemplates

/// The message form at the bottom of a conversation: new message, reply, edit, or retry of a failed one.
public struct ComposerViewModel: Renderable, Hashable {
    public static let templateName = "partials/composer"

    public let domID: String
    public let actionURL: String
    public let csrfToken: String
    /// The text to put back in the field (after an error, an edit or a retry).
    public let text: String
    /// Why the last attempt was not sent ("Write something before sending."); nil otherwise.
    public let errorMessage: String?
    /// True between pressing Send and the server's answer (set by the page script, rendered for snapshots).
    public let isSending: Bool
    /// The idempotency token the form posts; a retry reuses the failed message's token.
    public let token: String
    /// The message being answered, with a way to cancel the reply.
    public let replyQuote: ReplyQuoteViewModel?
    public let replyToID: String?
    public let cancelReplyURL: String?
    /// "Message Ana" for a new message, "Edit message" when editing.
    public let fieldLabel: String
    /// "Send" or "Save".
    public let submitLabel: String
    /// The limit the server enforces, for the `maxlength` attribute ("4000").
    public let maxLength: String
    /// Whether the text box takes the focus as the page opens: on a conversation's newest messages, where a
    /// person came to write (not on a page of older history, where they came to read).
    public let autofocus: Bool
    /// The types the photo field accepts ("image/jpeg,…"); nil when the form takes no photo (an edit).
    /// Set, the form is sent as multipart, so it works the same without the script.
    public let photoAccept: String?
    /// In a room: where the page script finds the members an `@` being typed may name.
    public let mentionsURL: String?
    /// Where the page script says its person is typing; nil in a room too big to show it.
    public let typingURL: String?

    public init(
        domID: String, actionURL: String, csrfToken: String, text: String, errorMessage: String?, isSending: Bool,
        token: String, replyQuote: ReplyQuoteViewModel?, replyToID: String?, cancelReplyURL: String?,
        fieldLabel: String, submitLabel: String, maxLength: String, autofocus: Bool = false, photoAccept: String? = nil,
        mentionsURL: String? = nil, typingURL: String? = nil
    ) {
        self.mentionsURL = mentionsURL
        self.typingURL = typingURL
        self.domID = domID
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.text = text
        self.errorMessage = errorMessage
        self.isSending = isSending
        self.token = token
        self.replyQuote = replyQuote
        self.replyToID = replyToID
        self.cancelReplyURL = cancelReplyURL
        self.fieldLabel = fieldLabel
        self.submitLabel = submitLabel
        self.maxLength = maxLength
        self.autofocus = autofocus
        self.photoAccept = photoAccept
    }

    public static let templateFields = TemplateFields<ComposerViewModel>(
        .text("domID", \.domID),
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("text", \.text),
        .text("errorMessage", \.errorMessage),
        .flag("isSending", \.isSending),
        .text("token", \.token),
        .object("replyQuote", \.replyQuote),
        .text("replyToID", \.replyToID),
        .text("cancelReplyURL", \.cancelReplyURL),
        .text("fieldLabel", \.fieldLabel),
        .text("submitLabel", \.submitLabel),
        .text("maxLength", \.maxLength),
        .flag("autofocus", \.autofocus),
        .text("photoAccept", \.photoAccept),
        .text("mentionsURL", \.mentionsURL),
        .text("typingURL", \.typingURL)
    )
}
