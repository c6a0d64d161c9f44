import ParlorTemplates

/// A block of a message's text: a paragraph, a quote, a list or a code block, each already split into runs.
public struct MessageBlockViewModel: TemplateContext, Hashable {
    public let isParagraph: Bool
    public let isQuote: Bool
    public let isList: Bool
    public let isOrdered: Bool
    public let isCode: Bool
    /// The runs of a paragraph or a quote.
    public let parts: [BodySegmentViewModel]
    /// The items of a list.
    public let items: [MessageListItemViewModel]
    /// A code block's lines, as typed.
    public let code: String?

    /// What the block shows, as text (for tests and announcements; the template reads the parts).
    public var text: String {
        code ?? (parts + items.flatMap(\.parts)).map(\.text).joined()
    }

    public static func paragraph(_ parts: [BodySegmentViewModel]) -> Self {
        Self(isParagraph: true, isQuote: false, isList: false, isOrdered: false, isCode: false, parts: parts, items: [], code: nil)
    }

    public static func quote(_ parts: [BodySegmentViewModel]) -> Self {
        Self(isParagraph: false, isQuote: true, isList: false, isOrdered: false, isCode: false, parts: parts, items: [], code: nil)
    }

    public static func list(ordered: Bool, items: [MessageListItemViewModel]) -> Self {
        Self(isParagraph: false, isQuote: false, isList: true, isOrdered: ordered, isCode: false, parts: [], items: items, code: nil)
    }

    public static func code(_ code: String) -> Self {
        Self(isParagraph: false, isQuote: false, isList: false, isOrdered: false, isCode: true, parts: [], items: [], code: code)
    }

    public static let templateFields = TemplateFields<MessageBlockViewModel>(
        .flag("isParagraph", \.isParagraph),
        .flag("isQuote", \.isQuote),
        .flag("isList", \.isList),
        .flag("isOrdered", \.isOrdered),
        .flag("isCode", \.isCode),
        .list("parts", \.parts),
        .list("items", \.items),
        .text("code", \.code)
    )
}

/// An item of a list in a message; `number` as typed in an ordered list ("3").
public struct MessageListItemViewModel: TemplateContext, Hashable {
    public let number: String?
    public let parts: [BodySegmentViewModel]

    public init(number: String?, parts: [BodySegmentViewModel]) {
        self.number = number
        self.parts = parts
    }

    public static let templateFields = TemplateFields<MessageListItemViewModel>(
        .text("number", \.number),
        .list("parts", \.parts)
    )
}
