import ParlorTemplates

/// Every view model that has a template, for loading the template library at start-up.
public enum ParlorViewModels {
    public static let renderable: [any Renderable.Type] = [
        ChatsPageViewModel.self,
        NewChatPageViewModel.self,
        NewRoomPageViewModel.self,
        CreateRoomViewModel.self,
        RoomMembersPageViewModel.self,
        RoomSettingsPageViewModel.self,
        SeenByPageViewModel.self,
        MentionSuggestionsViewModel.self,
        AuthPageViewModel.self,
        SettingsPageViewModel.self,
        SettingsFormViewModel.self,
        ImagePageViewModel.self,
        GalleryViewModel.self,
        GalleryFrameViewModel.self,
        ChatListViewModel.self,
        ChatListItemViewModel.self,
        ConversationViewModel.self,
        ConversationHeaderViewModel.self,
        ConversationMessagesViewModel.self,
        StreamEnvelopeViewModel.self,
        DaySectionViewModel.self,
        MessageCellViewModel.self,
        ComposerViewModel.self,
        CreateChatViewModel.self,
        ContactSuggestionsViewModel.self,
        ToastViewModel.self,
        UnreadBadgeViewModel.self,
        AuthFormViewModel.self,
        ImageDetailViewModel.self,
        FeedsPageViewModel.self,
        FeedListViewModel.self,
    ]
}
