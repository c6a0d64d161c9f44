import ParlorTemplates

// Full pages: the layout around one screen's view models. Each has its own template in Templates/.

/// `/chats` and `/rooms/{id}`: the list beside the open conversation (one at a time on narrow screens).
public struct ChatsPageViewModel: Renderable, Hashable {
    public static let templateName = "chats"

    public let layout: PageLayoutViewModel
    public let chatList: ChatListViewModel
    /// Nil on `/chats` with no chat open.
    public let conversation: ConversationViewModel?
    /// Whether a conversation is open (narrow screens then show it instead of the list).
    public let hasConversation: Bool
    /// Shown where the conversation would be when none is open.
    public let placeholderText: String

    public init(layout: PageLayoutViewModel, chatList: ChatListViewModel, conversation: ConversationViewModel?, placeholderText: String) {
        self.layout = layout
        self.chatList = chatList
        self.conversation = conversation
        self.hasConversation = conversation != nil
        self.placeholderText = placeholderText
    }

    public static let templateFields = TemplateFields<ChatsPageViewModel>(
        .object("layout", \.layout),
        .object("chatList", \.chatList),
        .object("conversation", \.conversation),
        .flag("hasConversation", \.hasConversation),
        .text("placeholderText", \.placeholderText)
    )
}

/// `/chats/new`.
public struct NewChatPageViewModel: Renderable, Hashable {
    public static let templateName = "new-chat"

    public let layout: PageLayoutViewModel
    public let form: CreateChatViewModel

    public init(layout: PageLayoutViewModel, form: CreateChatViewModel) {
        self.layout = layout
        self.form = form
    }

    public static let templateFields = TemplateFields<NewChatPageViewModel>(
        .object("layout", \.layout),
        .object("form", \.form)
    )
}

/// `/signin` and `/signup`.
public struct AuthPageViewModel: Renderable, Hashable {
    public static let templateName = "auth"

    public let layout: PageLayoutViewModel
    public let form: AuthFormViewModel

    public init(layout: PageLayoutViewModel, form: AuthFormViewModel) {
        self.layout = layout
        self.form = form
    }

    public static let templateFields = TemplateFields<AuthPageViewModel>(
        .object("layout", \.layout),
        .object("form", \.form)
    )
}

/// `/images/{id}`.
public struct ImagePageViewModel: Renderable, Hashable {
    public static let templateName = "image"

    public let layout: PageLayoutViewModel
    public let image: ImageDetailViewModel

    public init(layout: PageLayoutViewModel, image: ImageDetailViewModel) {
        self.layout = layout
        self.image = image
    }

    public static let templateFields = TemplateFields<ImagePageViewModel>(
        .object("layout", \.layout),
        .object("image", \.image)
    )
}
