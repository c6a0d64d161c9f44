import ParlorDomain

/// A message's reactions as one viewer sees them: the same for everyone who gave none of them.
public struct ReactionsBuilder: Sendable {
    let viewer: UserID
    let paths: Paths

    public init(viewer: UserID, paths: Paths) {
        self.viewer = viewer
        self.paths = paths
    }

    /// How many givers a label names before "and N others".
    static let namedInLabel = 3

    public static func domID(_ message: MessageID) -> String { "reactions-\(message)" }

    public func reactions(to message: MessageID, in chat: ChatID, _ counts: [ReactionCount]) -> ReactionsViewModel {
        // All taken back: an empty list, which live updates put in place of the last one.
        guard !counts.isEmpty else { return ReactionsViewModel(domID: Self.domID(message), items: []) }
        let url = paths.reactions(chat, message: message)
        return ReactionsViewModel(domID: Self.domID(message), items: counts.filter { !$0.people.isEmpty }.map { count in
            let isMine = count.people.contains(viewer)
            return ReactionItemViewModel(
                text: count.text, count: String(count.people.count), label: label(count, isMine: isMine), isMine: isMine, toggleURL: url
            )
        })
    }

    /// "You, Ana Lima and Ben Okafor reacted with 👍"; past three names, "… and 4 others".
    func label(_ count: ReactionCount, isMine: Bool) -> String {
        "\(names(count, isMine: isMine, naming: Self.namedInLabel)) reacted with \(count.text)"
    }

    /// Who gave a reaction, the viewer first as "You": up to `naming` names, then "and N others".
    func names(_ count: ReactionCount, isMine: Bool, naming: Int) -> String {
        var names = zip(count.people, count.names).filter { $0.0 != viewer }.map { $0.1.isEmpty ? "Someone" : $0.1 }
        if isMine { names.insert("You", at: 0) }
        let shown = names.prefix(naming)
        let others = names.count - shown.count
        let who: String
        if others > 0 {
            who = shown.joined(separator: ", ") + " and \(others) " + (others == 1 ? "other" : "others")
        } else if shown.count > 1 {
            who = shown.dropLast().joined(separator: ", ") + " and " + shown.last!
        } else {
            who = shown.first ?? "Someone"
        }
        return who
    }

    /// The page for choosing a reaction: the quick picks (pressed where the viewer gave them), a field, who gave which.
    public func reactPage(
        _ message: Message, author: String, reactions: [ReactionCount], layout: PageLayoutViewModel, csrfToken: String, typed: String = "",
        errorMessage: String? = nil
    ) -> ReactPageViewModel {
        let url = paths.reactions(message.chatID, message: message.id)
        let mine = Set(reactions.filter { $0.people.contains(viewer) }.map(\.text))
        return ReactPageViewModel(
            layout: layout,
            heading: message.senderID == viewer ? "React to your message" : "React to \(author)\u{2019}s message",
            excerpt: TextPreview.excerpt(MessageCellBuilder.previewText(message), limit: MessageCellBuilder.quoteLimit),
            chatURL: paths.chat(message.chatID) + "#message-\(message.id)",
            actionURL: url, csrfToken: csrfToken,
            quickPicks: ReactionText.quickPicks.map { text in
                ReactionItemViewModel(
                    text: text, count: "", label: mine.contains(text) ? "Take back \(text)" : "React with \(text)", isMine: mine.contains(text), toggleURL: url
                )
            },
            typed: typed, errorMessage: errorMessage,
            given: reactions.filter { !$0.people.isEmpty }.map { count in
                GivenReactionViewModel(text: count.text, names: names(count, isMine: count.people.contains(viewer), naming: .max))
            },
            maximumLength: ReactionText.maximumLength, typedLimit: ReactionText.typedLimit
        )
    }
}
