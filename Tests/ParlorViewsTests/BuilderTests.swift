import Foundation
import ParlorDomain
import ParlorFixtures
import ParlorViews
import Testing

// Builders turn domain values and a viewer into exactly what the templates show.

@Suite struct BuilderTests {
    let world = FixtureWorld()

    @Test func theChatListKeepsTheOrderAndFormatsEachRow() {
        let list = ChatListBuilder(context: world.context).loaded(world.summaries, current: ChatID(8))
        // Rooms first, then direct chats, each by its newest activity.
        #expect(list.rooms.map(\.domID) == ["chat-item-13"])
        #expect(list.directChats.map(\.domID) == ["chat-item-7", "chat-item-8", "chat-item-9", "chat-item-10", "chat-item-11"])
        #expect(list.items.map(\.lastDate) == ["10:12\u{202F}AM", "1:58\u{202F}PM", "Yesterday", "Tuesday", "Mar 2", "11/20/2025"])
        #expect(list.items.map(\.unreadBadge) == ["1", "3", nil, "99+", "1", nil], "General counts its one mention")
        #expect(list.items[0].unreadLabel == "1 mention" && !list.items[0].hasDot)
        #expect(list.items.map(\.isCurrent) == [false, false, true, false, false, false])
        #expect(list.items[1].lastMessagePreview == "See you at the station at 6? I'll bring the tickets.")
        #expect(list.items[2].lastMessagePreview == "You: Merci ! The photos are lovely.")
        #expect(list.items[2].avatar.imageURL == "/images/31/avatarSmall")
        // A room: its name, its size, its own initials, and who wrote the last message.
        #expect(list.items[0].title == "General" && list.items[0].subtitle == "500 members" && list.items[0].avatar.initials == "G")
        #expect(list.items[0].lastMessagePreview == "Dmitri Volkov: Who is bringing cake on Friday?" && list.items[0].avatar.imageURL == nil)
        #expect(list.items[1].avatar.imageURL == nil)
        #expect(list.items[1].avatar.initials == "BO")
        #expect(!list.isEmpty && !list.isLoading && list.errorMessage == nil)
    }

    @Test func theChatListHasFourStates() {
        let builder = ChatListBuilder(context: world.context)
        #expect(builder.loading().isLoading && !builder.loading().isEmpty)
        #expect(builder.loaded([], current: nil).isEmpty)
        let failed = builder.failed("Could not load.")
        #expect(failed.errorMessage == "Could not load." && !failed.isEmpty && !failed.isLoading)
    }

    @Test func aConversationGroupsMessagesByTheViewersDay() {
        let conversation = ConversationBuilder(context: world.context).conversation(world.conversationWithBen, draft: ComposerDraft(token: "t"))
        #expect(conversation.days.map(\.label) == ["November 12", "Wednesday", "Yesterday", "Today"])
        #expect(conversation.days.map { $0.messages.count } == [1, 1, 1, 5])
        #expect(conversation.olderMessagesURL == "/rooms/7?before=100")
        #expect(conversation.composer.actionURL == "/rooms/7/messages", "no token in a URL: it is the form's first field")
        #expect(conversation.composer.csrfToken == "csrf-fixture-token")
    }

    @Test func onePersonsMessagesWithinFiveMinutesOfTheSameDayAreGrouped() {
        let cells = MessageCellBuilder(context: world.context)
        let first = world.message(1, chat: 7, from: world.ben, "One", at: "2026-11-20T12:00:00Z")
        func follows(_ sender: User, _ iso: String) -> Bool {
            cells.cell(world.message(2, chat: 7, from: sender, "Two", at: iso), sender: sender, after: first).continuesGroup
        }
        #expect(follows(world.ben, "2026-11-20T12:04:59Z"))
        #expect(!follows(world.ben, "2026-11-20T12:05:00Z"), "five minutes apart starts a new group")
        #expect(!follows(world.ana, "2026-11-20T12:01:00Z"), "another person")
        #expect(!cells.cell(first, sender: world.ben).continuesGroup, "nothing before")
        // Across the viewer's midnight a new day starts, and with it a new group.
        let late = world.message(3, chat: 7, from: world.ben, "Late", at: "2026-11-20T22:58:00Z")
        let context = ViewerContext(viewer: world.ana, now: world.now, timeZone: TimeZone(identifier: "Europe/Paris")!, locale: Locale(identifier: "en_US"))
        let afterMidnight = world.message(4, chat: 7, from: world.ben, "Early", at: "2026-11-20T23:01:00Z")
        #expect(!MessageCellBuilder(context: context).cell(afterMidnight, sender: world.ben, after: late).continuesGroup)
        let utc = ViewerContext(viewer: world.ana, now: world.now, timeZone: TimeZone(identifier: "UTC")!, locale: Locale(identifier: "en_US"))
        #expect(MessageCellBuilder(context: utc).cell(afterMidnight, sender: world.ben, after: late).continuesGroup)
    }

    @Test func datesInAnotherLanguageThanThePagesEnglishSayWhichOne() {
        #expect(DateLabels.languageTag(for: "ja_JP") == "ja-JP")
        #expect(DateLabels.languageTag(for: "fr_FR@calendar=gregorian") == "fr-FR")
        #expect(DateLabels.languageTag(for: "en_GB") == nil && DateLabels.languageTag(for: "en") == nil)
        #expect(DateLabels.languageTag(for: "ja_JP\"><script>") == nil && DateLabels.languageTag(for: "") == nil)
        let japanese = ViewerContext(viewer: world.ana, now: world.now, timeZone: TimeZone(identifier: "Asia/Tokyo")!, locale: Locale(identifier: "ja_JP"))
        let cell = MessageCellBuilder(context: japanese).cell(world.conversationWithBen.messages[0], sender: world.ben)
        #expect(cell.timeLanguage == "ja-JP")
        #expect(MessageCellBuilder(context: world.context).cell(world.conversationWithBen.messages[0], sender: world.ben).timeLanguage == nil)
    }

    @Test func timeZonesAreGroupedByRegionWithTheirOffsetNow() {
        let zones = ["America/Argentina/Buenos_Aires", "America/Sao_Paulo", "Asia/Kathmandu", "Europe/Paris", "Asia/Kolkata", "EST5EDT"]
        let groups = SettingsBuilder(context: world.context, timeZones: zones).timeZoneGroups()
        #expect(groups.map(\.label) == ["Universal", "America", "Asia", "Europe", "Other"])
        #expect(groups[1].zones.map(\.label) == ["Buenos Aires, Argentina (UTC\u{2212}03:00)", "Sao Paulo (UTC\u{2212}03:00)"])
        #expect(groups[2].zones.map(\.label) == ["Kathmandu (UTC+05:45)", "Kolkata (UTC+05:30)"])
        // November: Paris is on winter time. The viewer's own zone is the one chosen.
        #expect(groups[3].zones == [SettingsOptionViewModel(value: "Europe/Paris", label: "Paris (UTC+01:00)", isSelected: world.ana.timeZoneIdentifier == "Europe/Paris")])
        #expect(groups.flatMap(\.zones).filter(\.isSelected).map(\.value) == [world.ana.timeZoneIdentifier])
        #expect(SettingsBuilder.offset(-12_600) == "UTC\u{2212}03:30" && SettingsBuilder.offset(0) == "UTC+00:00" && SettingsBuilder.offset(50_400) == "UTC+14:00")
    }

    /// The system's list says Calcutta and Kiev; Settings offers Kolkata and Kyiv, and someone who has an old
    /// name sees its zone chosen under the new one.
    @Test func renamedCitiesAreOfferedUnderTheirCurrentNames() {
        let offered = TimeZoneNames.offered(["Asia/Calcutta", "Europe/Kiev", "Europe/Kyiv", "Asia/Katmandu", "Europe/Paris", "Europe/Uzhgorod"])
        #expect(offered == ["Asia/Kathmandu", "Asia/Kolkata", "Europe/Kyiv", "Europe/Paris", "Europe/Uzhgorod"])
        #expect(TimeZone.knownTimeZoneIdentifiers.contains("Asia/Calcutta") == TimeZoneNames.offered(TimeZone.knownTimeZoneIdentifiers).contains("Asia/Kolkata"))
        #expect(!TimeZoneNames.offered(TimeZone.knownTimeZoneIdentifiers).contains { TimeZoneNames.renamed[$0] != nil })
        let calcutta = User(id: world.ana.id, handle: "ana", displayName: "Ana", timeZoneIdentifier: "Asia/Calcutta")
        let context = ViewerContext(viewer: calcutta, now: world.now, timeZone: TimeZone(identifier: "Asia/Calcutta")!, locale: Locale(identifier: "en_US"))
        let groups = SettingsBuilder(context: context, timeZones: offered).timeZoneGroups()
        #expect(groups.flatMap(\.zones).filter(\.isSelected).map(\.label) == ["Kolkata (UTC+05:30)"])
        #expect(groups[0].zones.count == 1, "no extra zone up front for the old name")
    }

    @Test func theUnreadLineGoesAboveTheContactsFirstMessagePastTheReadMark() {
        let builder = ConversationBuilder(context: world.context)
        func marked(_ mark: MessageID?) -> [String] {
            builder.conversation(world.conversationWithBen, draft: ComposerDraft(token: "t"), unreadAfter: mark)
                .messages.days.flatMap(\.messages).filter(\.startsUnread).map(\.domID)
        }
        #expect(marked(MessageID(104)) == ["message-110"])
        #expect(marked(MessageID(115)) == ["message-120"], "Ana's own 115 is not unread to her")
        #expect(marked(MessageID(0)) == ["message-100"])
        #expect(marked(MessageID(121)).isEmpty && marked(nil).isEmpty)
    }

    @Test func ownMessagesGoFromSendingToSentToReadAndFailedOffersARetry() {
        let cells = ConversationBuilder(context: world.context)
            .conversation(world.conversationWithBen, draft: ComposerDraft(token: "t"))
            .days.flatMap(\.messages)
        let states = Dictionary(uniqueKeysWithValues: cells.map { ($0.domID, $0.delivery?.label) })
        #expect(states["message-104"] == "Read")
        #expect(states["message-115"] == "Read")
        #expect(states["message-121"] == "Sent")
        #expect(states["message-110"] == .some(nil), "the contact's messages have no delivery state")
        #expect(states["pending-tok-sending"] == "Sending")
        #expect(states["pending-tok-failed"] == "Failed")
        let failed = cells.first { $0.domID == "pending-tok-failed" }
        #expect(failed?.delivery?.retryURL == "/rooms/7?retry=tok-failed#composer-7")
        #expect(failed?.delivery?.failureReason == "Parlor could not reach the server.")
    }

    @Test func theEditedMarkSharesTheAuthorLabelAndRepliesQuote() {
        let cells = ConversationBuilder(context: world.context)
            .conversation(world.conversationWithBen, draft: ComposerDraft(token: "t"))
            .days.flatMap(\.messages)
        let edited = cells.first { $0.domID == "message-110" }
        #expect(edited?.authorLabel == "Ben Okafor · Edited")
        #expect(edited?.editURL == nil, "only your own messages can be edited")
        #expect(edited?.body.map(\.text).joined() == "Great.\nI'll check the trains tonight.")
        let reply = cells.first { $0.domID == "message-115" }
        #expect(reply?.authorLabel == "You")
        #expect(reply?.replyQuote == ReplyQuoteViewModel(author: "Ben Okafor", excerpt: "Great. I'll check the trains tonight.", url: "/rooms/7?around=110#message-110"), "the original opened in context, loaded or not")
        #expect(reply?.editURL == "/rooms/7?edit=115#composer-7")
    }

    @Test func everyURLCarriesTheBasePath() {
        let context = ViewerContext(viewer: world.ana, now: world.now, basePath: "/parlor/", csrfToken: "x")
        let item = ChatListBuilder(context: context).item(world.summaries[2], isCurrent: false)
        #expect(item.url == "/parlor/rooms/8")
        #expect(item.avatar.imageURL == "/parlor/images/31/avatarSmall")
        let layout = PageBuilder(context: context).layout(unreadTotal: 4, liveChat: ChatID(8))
        #expect(layout.title == "(4) Parlor")
        #expect(layout.stylesheetURL == "/parlor/public/css/parlor.css")
        #expect(layout.eventsURL == "/parlor/events?chat=8")
        #expect(layout.faviconURL == "/parlor/public/img/favicon-unread.svg")
    }

    @Test func theSameInputsAlwaysBuildTheSameViewModels() {
        let first = Fixtures.all.map { String(describing: $0.viewModel) }
        let second = Fixtures.all.map { String(describing: $0.viewModel) }
        #expect(first == second)
    }
}

