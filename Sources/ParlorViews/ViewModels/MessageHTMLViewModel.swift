import ParlorTemplates

/// A message's text as HTML on its own, as the cell shows it: what a bot's webhook and the bot API are given.
public struct MessageHTMLViewModel: Renderable, Hashable {
    public static let templateName = "partials/message-html"

    public let body: [MessageBlockViewModel]

    public init(body: [MessageBlockViewModel]) {
        self.body = body
    }

    public static let templateFields = TemplateFields<MessageHTMLViewModel>(
        .list("body", \.body)
    )
}
