import Foundation
import ParlorDomain
import ParlorViews

extension Fixtures {
    /// Strings people may type to break a page: markup, attribute breakouts, script URLs, bidi overrides,
    /// a 10,000-character word, emoji and stacked combining marks. Rendered, they must stay inert text.
    public static let hostileStrings = [
        "<script>alert('parlor')</script>",
        "\"><img src=x onerror=alert(1)>",
        "javascript:alert(document.cookie)",
        "\u{202E}gnp.exe\u{202C} \u{2066}isolated\u{2069}",
        String(repeating: "W", count: 10_000),
        "👩‍👩‍👧‍👦🏳️‍🌈 Z\u{351}\u{34B}\u{34B}\u{34B}a\u{36A}\u{342}l\u{30A}g\u{334}o",
        "&amp; &lt;b&gt; {{mustache}} ' \"",
    ]

    /// Formatting markers meant to confuse: unclosed and crossed pairs, markup inside code, a fence never
    /// closed, markers inside links and handles.
    public static let hostileFormatting = [
        "*bold _crossed* italic_ ~unclosed",
        "`<script>alert(1)</script>` **`code in bold`**",
        "> <img src=x onerror=alert(1)> *quote*",
        "1. <b>one</b>\n- _two_ https://example.com/a_b_c_",
        "snake_case_name 2*3*4 @ana_b *@ana* _https://example.com/\"><x>_",
        "```<b>\n</code></pre><script>alert(2)</script>\n",
    ].joined(separator: "\n")

    static var hostile: [Fixture] {
        let world = FixtureWorld()
        let strings = hostileStrings
        let villain = User(id: UserID(666), handle: "x\"><svg onload=alert(1)>", displayName: strings[0] + strings[3])
        let body = strings.joined(separator: "\n") + "\nhttps://example.com/\"><script>alert(1)</script> and javascript:alert(1)"
        let messages = [
            Message(id: MessageID(900), chatID: ChatID(66), senderID: villain.id, body: body, createdAt: world.now.addingTimeInterval(-60), editedAt: world.now),
            Message(id: MessageID(901), chatID: ChatID(66), senderID: world.ana.id, body: strings[1], createdAt: world.now.addingTimeInterval(-30), replyTo: MessageID(900)),
        ]
        let snapshot = ConversationSnapshot(chatID: ChatID(66), contact: villain, messages: messages)
        let summary = ChatSummary(chatID: ChatID(66), contact: villain, lastMessage: messages[0], unreadCount: 5, lastActivity: world.now)
        let pages = PageBuilder(context: world.context)
        let list = ChatListBuilder(context: world.context).loaded([summary], current: ChatID(66))
        let conversation = ConversationBuilder(context: world.context).conversation(
            snapshot, draft: ComposerDraft(text: strings[1] + strings[0], errorMessage: strings[0], token: strings[1])
        )
        let create = CreateChatBuilder(context: world.context)
        return [
            Fixture("hostile/chats-page", pages.chats(list: list, conversation: conversation, title: villain.displayName, unreadTotal: 5, openChat: ChatID(66)), isPage: true),
            Fixture("hostile/create-chat", create.form(handle: strings[1], problem: .unknownHandle(strings[1]), matches: [.init(user: villain)])),
            Fixture("hostile/toast", pages.toast(messages[0], from: villain)),
            Fixture("hostile/formatting", ConversationBuilder(context: world.context).conversation(ConversationSnapshot(chatID: ChatID(67), contact: villain, messages: [
                Message(id: MessageID(910), chatID: ChatID(67), senderID: world.ana.id, body: hostileFormatting, createdAt: world.now.addingTimeInterval(-20)),
            ]), draft: ComposerDraft(token: "tok"))),
            Fixture("hostile/auth-form", AuthFormBuilder(paths: world.context.paths, csrfToken: strings[1]).signUp(handle: strings[1], displayName: strings[0], error: strings[2])),
        ]
    }
}
