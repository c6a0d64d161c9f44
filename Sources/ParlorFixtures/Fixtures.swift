import Foundation
import ParlorDomain
import ParlorViews

/// Every view model in every state the product shows, built through the real builders from `FixtureWorld`.
public enum Fixtures {
    /// All fixtures, in gallery order. Names are unique and stable: snapshots are stored under them.
    public static var all: [Fixture] {
        pages + chatList + conversation + conversationRegions + cells + feeds + forms + notifications + locales + hostile + longContent + search
    }

    static var pages: [Fixture] {
        let world = FixtureWorld()
        let pages = PageBuilder(context: world.context)
        let list = ChatListBuilder(context: world.context)
        let conversation = ConversationBuilder(context: world.context)
        let open = conversation.conversation(world.conversationWithBen, draft: ComposerDraft(token: "tok-next"))
        let unread = world.summaries.reduce(0) { $0 + $1.unreadCount }
        let signedOut = PageBuilder(context: world.context, isSignedIn: false)
        let auth = AuthFormBuilder(paths: world.context.paths, csrfToken: "csrf-fixture-token")
        let images = ImageDetailBuilder(paths: world.context.paths)
        let create = CreateChatBuilder(context: world.context)
        // A few zones, not the machine's whole list: the snapshot stays short and the same everywhere.
        let settings = SettingsBuilder(context: world.context, timeZones: ["America/Sao_Paulo", "Asia/Tokyo", "Europe/Berlin", "Europe/Paris"])
        return [
            Fixture("settings-page/saved", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(saved: true), password: settings.passwordForm(), avatarForm: settings.avatarForm()
            ), isPage: true),
            Fixture("settings-page/photo-refused", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(), password: settings.passwordForm(),
                avatarForm: settings.avatarForm(error: ImageRefusal.notAnImage(kind: "an SVG drawing or another XML file").message)
            ), isPage: true),
            Fixture("settings-page/wrong-current-password", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(),
                password: settings.passwordForm(error: "That is not your current password.", at: .current), avatarForm: settings.avatarForm()
            ), isPage: true),
            Fixture("settings-page/password-changed", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(), password: settings.passwordForm(changed: true),
                avatarForm: settings.avatarForm(changed: true)
            ), isPage: true),
            Fixture("settings-page/notifications", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(), password: settings.passwordForm(), avatarForm: settings.avatarForm(),
                notifications: settings.notifications(
                    browsers: [
                        PushSubscription(
                            id: 3, userID: world.context.viewer.id, endpoint: "https://push.example/a", p256dh: "", auth: "",
                            label: "Chrome on Linux", createdAt: world.context.now.addingTimeInterval(-3 * 86_400)
                        ),
                        PushSubscription(
                            id: 4, userID: world.context.viewer.id, endpoint: "https://push.example/b", p256dh: "", auth: "",
                            label: "Firefox on <Android> & co", createdAt: world.context.now.addingTimeInterval(-600)
                        ),
                    ],
                    preferences: NotificationPreferences(isPrivate: true), serverKey: "BExampleServerKey_-", saved: .tested(2)
                )
            ), isPage: true),
            Fixture("settings-page/notifications-none", SettingsPageViewModel(
                layout: pages.layout(title: "Settings"), form: settings.form(), password: settings.passwordForm(), avatarForm: settings.avatarForm(),
                notifications: settings.notifications(browsers: [], preferences: NotificationPreferences(), serverKey: "BExampleServerKey_-")
            ), isPage: true),
            Fixture("typing/one", TypingBuilder.line(in: ChatID(7), names: ["Ana Lima"])),
            Fixture("typing/three-one-hostile", TypingBuilder.line(in: ChatID(7), names: ["Ana Lima", "<b>Ben</b> & co", "Chloé Martin"])),
            Fixture("typing/several", TypingBuilder.line(in: ChatID(7), names: ["Ana", "Ben", "Chloé", "Dmitri"])),
            Fixture("presence/away", PresenceBuilder.presence(of: UserID(2), named: "Ben \"<Okafor>\"", .away)),
            Fixture("reactions/given-and-not", ReactionsBuilder(viewer: world.ana.id, paths: world.context.paths).reactions(to: MessageID(120), in: ChatID(7), [
                ReactionCount(text: "👍", people: [world.ben.id, world.ana.id, world.dmitri.id, UserID(40), UserID(41)], names: ["Ben Okafor", "Ana Lima", "Dmitri Volkov", "Eve", "Fay"]),
                ReactionCount(text: "<b>ok</b> & \"1\"", people: [world.ben.id], names: ["Ben Okafor"]),
            ])),
            Fixture("settings-form/empty-name", settings.form(displayName: "", error: "A display name has 1 to 50 characters.")),
            Fixture("chats-page/conversation-open", pages.chats(list: list.loaded(world.summaries, current: ChatID(7)), conversation: open, title: "Ben Okafor", unreadTotal: unread, openChat: ChatID(7)), isPage: true),
            Fixture("chats-page/no-chat-open", pages.chats(list: list.loaded(world.summaries, current: nil), conversation: nil, title: nil, unreadTotal: unread, openChat: nil), isPage: true),
            Fixture("chats-page/first-visit", pages.chats(list: list.loaded([], current: nil), conversation: nil, title: nil, unreadTotal: 0, openChat: nil), isPage: true),
            Fixture("new-chat-page/suggestions", NewChatPageViewModel(
                layout: pages.layout(title: "New chat", unreadTotal: unread),
                form: create.form(handle: "ch", matches: [.init(user: world.chloe, existingChat: ChatID(8)), .init(user: User(id: UserID(12), handle: "charlie", displayName: "Charlie Day"))])
            ), isPage: true),
            Fixture("new-room-page/blank", NewRoomPageViewModel(
                layout: pages.layout(title: "New room", unreadTotal: unread), form: CreateRoomBuilder(context: world.context).form()
            ), isPage: true),
            Fixture("chats-page/room-open", pages.chats(
                list: list.loaded(world.summaries, current: ChatID(14)),
                conversation: conversation.conversation(world.launchRoom, draft: ComposerDraft(token: "tok-next")), title: "Launch", unreadTotal: unread,
                openChat: ChatID(14)
            ), isPage: true),
            Fixture("room-members-page/closed", RoomPagesBuilder(context: world.context).members(
                ChatID(14), world.launchRoom.heading, members: [world.ana, world.ben, world.chloe, world.dmitri], layout: pages.layout(title: "Members of Launch")
            ), isPage: true),
            Fixture("room-members-page/unknown-handle", RoomPagesBuilder(context: world.context).members(
                ChatID(14), world.launchRoom.heading, members: [world.ana, world.ben], layout: pages.layout(title: "Members of Launch"), handles: "@zed",
                error: Refusal.unknownHandle("zed").message
            ), isPage: true),
            Fixture("room-members-page/open-room", RoomPagesBuilder(context: world.context).members(
                ChatID(13), world.general, members: [world.ana, world.bot, world.ben], layout: pages.layout(title: "Members of General")
            ), isPage: true),
            Fixture("react-page/choosing", ReactionsBuilder(viewer: world.ana.id, paths: world.context.paths).reactPage(
                world.launchRoom.messages[3], author: "Ben Okafor", reactions: [
                    ReactionCount(text: "🎉", people: [world.ben.id, world.ana.id], names: ["Ben Okafor", "Ana Lima"]),
                    ReactionCount(text: "+1", people: [world.dmitri.id], names: ["Dmitri Volkov"]),
                ], layout: pages.layout(title: "React"), csrfToken: "csrf-token"
            ), isPage: true),
            Fixture("react-page/refused", ReactionsBuilder(viewer: world.ana.id, paths: world.context.paths).reactPage(
                world.launchRoom.messages[3], author: "Ben Okafor", reactions: [], layout: pages.layout(title: "React"), csrfToken: "csrf-token",
                typed: "far too long a reaction", errorMessage: Refusal.invalidReaction.message
            ), isPage: true),
            Fixture("seen-by-page/three", RoomPagesBuilder(context: world.context).seenBy(
                world.launchRoom.messages[3], readers: world.launchRoom.readers + [Reader(user: world.ana, lastRead: MessageID(144))],
                layout: pages.layout(title: "Seen by")
            ), isPage: true),
            Fixture("room-settings-page/current", RoomPagesBuilder(context: world.context).settings(
                ChatID(14), world.launchRoom.heading, layout: pages.layout(title: "Settings of Launch")
            ), isPage: true),
            Fixture("room-settings-page/name-refused", RoomPagesBuilder(context: world.context).settings(
                ChatID(14), world.launchRoom.heading, layout: pages.layout(title: "Settings of Launch"), name: "", topic: "Friday", refusal: .invalidRoomName
            ), isPage: true),
            Fixture("administration-page/invitation", AdministrationBuilder(context: world.context).page(
                ParlorSettings(
                    signUpPolicy: .invitation, onlyAdministratorsCreateRooms: true,
                    joinLink: JoinLink(code: "fixture-join-code", createdAt: world.now.addingTimeInterval(-86_400), expiresAt: world.now.addingTimeInterval(6 * 86_400), usesLimit: 10, uses: 2),
                    hasPeople: true
                ),
                people: [
                    Account(user: world.ana, role: .administrator), Account(user: world.ben, role: .member),
                    Account(user: world.dmitri, role: .member, deactivatedAt: world.now.addingTimeInterval(-3_600)),
                ],
                query: "", rooms: [
                    RoomListing(id: ChatID(13), name: "General", kind: .open, memberCount: 4),
                    RoomListing(id: ChatID(14), name: "Launch", kind: .closed, memberCount: 3),
                ],
                bots: [
                    Bot(user: User(id: UserID(40), handle: "deploy", displayName: "Deploy Bot", isBot: true), webhookURL: "https://ci.example.org/parlor", createdAt: world.now),
                    Bot(user: User(id: UserID(41), handle: "standup", displayName: "Standup", isBot: true), webhookURL: nil, createdAt: world.now, isActive: false),
                ],
                origin: "https://chat.example.org", layout: pages.layout(title: "Administration"),
                newKey: (handle: "deploy", key: "fixture-bot-key-shown-once")
            ), isPage: true),
            Fixture("message-html/formatted", MessageCellBuilder(context: world.context).html(Message(
                id: MessageID(500), chatID: ChatID(14), senderID: world.ben.id,
                body: "Ship **main** <now>, @ana:\n> before lunch\n- tests\n- https://ci.example.org/run/7", createdAt: world.now
            ))),
            Fixture("administration-page/refused", AdministrationBuilder(context: world.context).page(
                ParlorSettings(
                    signUpPolicy: .open,
                    joinLink: JoinLink(code: "fixture-join-code", createdAt: world.now.addingTimeInterval(-86_400), usesLimit: 1, uses: 1),
                    hasPeople: true
                ),
                people: [], query: "zz", rooms: [], origin: "https://chat.example.org", layout: pages.layout(title: "Administration"),
                error: Refusal.handleTaken("deploy").message, draft: AdministrationBuilder.BotDraft(name: "Deploy", handle: "deploy", webhook: "https://ci.example.org/parlor")
            ), isPage: true),
            Fixture("auth-page/first-administrator", AuthPageViewModel(layout: signedOut.layout(title: "Create administrator account", hasLiveUpdates: false), form: auth.firstAdministrator()), isPage: true),
            Fixture("auth-page/joining", AuthPageViewModel(layout: signedOut.layout(title: "Create account", hasLiveUpdates: false), form: auth.joining(code: "fixture-join-code")), isPage: true),
            Fixture("auth-page/sign-up-closed", AuthPageViewModel(layout: signedOut.layout(title: "Create account", hasLiveUpdates: false), form: auth.signUpClosed(Refusal.invitationRequired.message)), isPage: true),
            Fixture("auth-page/sign-in", AuthPageViewModel(layout: signedOut.layout(title: "Sign in", hasLiveUpdates: false), form: auth.signIn()), isPage: true),
            Fixture("auth-page/sign-in-failed", AuthPageViewModel(layout: signedOut.layout(title: "Sign in", hasLiveUpdates: false), form: auth.signIn(handle: "ana", error: "That handle and password do not match.", field: .password)), isPage: true),
            Fixture("auth-page/sign-up-taken", AuthPageViewModel(layout: signedOut.layout(title: "Create account", hasLiveUpdates: false), form: auth.signUp(handle: "ben", displayName: "Ben", error: "@ben is taken. Try another handle.", field: .handle)), isPage: true),
            Fixture("image-page/loading", ImagePageViewModel(layout: pages.layout(title: "Image"), image: images.detail(ImageID(31), state: .loading, altText: "Photo from Chloé", backURL: "/chats/8")), isPage: true),
            Fixture("image-page/shown", ImagePageViewModel(layout: pages.layout(title: "Image"), image: images.detail(ImageID(31), state: .loaded, altText: "Photo from Chloé", backURL: "/chats/8")), isPage: true),
            Fixture("image-detail/loaded-live", images.detail(ImageID(32), state: .loaded, altText: "Map of the station", backURL: "/chats/7")),
            Fixture("image-page/photo-in-a-chat", ImagePageViewModel(layout: pages.layout(title: "Photo from Chloé"), image: images.detail(
                photo: StoredImage(id: ImageID(33), ownerID: world.chloe.id, purpose: .message, versions: [
                    StoredImageVersion(role: .display, format: .jpeg, width: 1_200, height: 900, hash: "d1", byteCount: 200_000),
                    StoredImageVersion(role: .thumbnail, format: .jpeg, width: 320, height: 240, hash: "t1", byteCount: 20_000),
                    StoredImageVersion(role: .full, format: .jpeg, width: 4_032, height: 3_024, hash: "f1", byteCount: 2_400_000),
                ], messageID: MessageID(141)),
                pendingSize: nil, altText: "Photo from Chloé", chatURL: "/rooms/8#message-141", around: PhotosAround(previous: ImageID(30), next: ImageID(35))
            )), isPage: true),
            Fixture("image-page/failed", ImagePageViewModel(layout: pages.layout(title: "Image"), image: images.detail(ImageID(31), state: .failed(reason: "The image could not be loaded."), altText: "Photo from Chloé", backURL: "/chats/8")), isPage: true),
        ]
    }

    static var chatList: [Fixture] {
        let world = FixtureWorld()
        let list = ChatListBuilder(context: world.context)
        let summaries = world.summaries
        return [
            Fixture("chat-list/loading", list.loading()),
            Fixture("chat-list/loaded", list.loaded(summaries, current: ChatID(8))),
            Fixture("chat-list/empty", list.loaded([], current: nil)),
            Fixture("chat-list/error", list.failed("Your chats could not be loaded. Check your connection and try again.")),
            Fixture("chat-list-item/unread", list.item(summaries[0], isCurrent: false)),
            Fixture("chat-list-item/room-with-sender", list.item(summaries[1], isCurrent: false)),
            Fixture("chat-list-item/unread-over-99", list.item(summaries[3], isCurrent: false)),
            Fixture("chat-list-item/room-unread-dot", list.item(ChatSummary(
                chatID: ChatID(14), heading: world.launchRoom.heading, lastMessage: world.launchRoom.messages.last, lastSenderName: "Ana Lima", unreadCount: 4,
                lastActivity: FixtureWorld.date("2026-11-20T12:50:00Z")
            ), isCurrent: false)),
            Fixture("chat-list-item/direct-of-five", list.item(ChatSummary(
                chatID: ChatID(16), heading: ChatHeading(kind: .direct, name: "Ben Okafor, Chloé Martin, Dmitri Volkov", topic: nil, memberCount: 5, contact: nil),
                lastMessage: world.message(160, chat: 16, from: world.ben, "Dinner on Saturday?", at: "2026-11-20T12:20:00Z"), lastSenderName: "Ben Okafor",
                unreadCount: 1, lastActivity: FixtureWorld.date("2026-11-20T12:20:00Z")
            ), isCurrent: false)),
            Fixture("chat-list-item/muted", list.item(ChatSummary(
                chatID: ChatID(13), heading: world.general, lastMessage: summaries[1].lastMessage, lastSenderName: "Dmitri Volkov", unreadCount: 9,
                lastActivity: summaries[1].lastActivity, involvement: .nothing, mentionCount: 0
            ), isCurrent: false)),
            Fixture("chat-list-item/current-with-picture", list.item(summaries[2], isCurrent: true)),
            Fixture("chat-list-item/no-messages", list.item(ChatSummary(chatID: ChatID(12), contact: world.dmitri, lastMessage: nil, unreadCount: 0, lastActivity: world.now), isCurrent: false)),
        ]
    }

    static var conversation: [Fixture] {
        let world = FixtureWorld()
        let builder = ConversationBuilder(context: world.context)
        let snapshot = world.conversationWithBen
        let empty = ConversationSnapshot(chatID: ChatID(12), contact: world.dmitri, messages: [])
        let reply = snapshot.messages[4]
        let own = snapshot.messages[3]
        return [
            Fixture("conversation/history", builder.conversation(snapshot, draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/older-page", builder.conversation(snapshot, draft: ComposerDraft(token: "tok-next"), history: true)),
            Fixture("conversation/empty", builder.conversation(empty, draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/asking-to-delete", builder.conversation(snapshot, draft: ComposerDraft(token: "tok-next", deleting: own))),
            Fixture("conversation/closed-room", builder.conversation(world.launchRoom, draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/mentions", builder.conversation(ConversationSnapshot(
                chatID: ChatID(13), heading: world.general, messages: [
                    world.message(150, chat: 13, from: world.ben, "@ana can you bring the projector? cc @dmitri", at: "2026-11-20T12:00:00Z"),
                    world.message(151, chat: 13, from: world.dmitri, "Cake in the kitchen, @everyone!", at: "2026-11-20T12:10:00Z"),
                    world.message(152, chat: 13, from: world.ana, "On it, @ben (mail ana@example.org)", at: "2026-11-20T12:12:00Z"),
                ], people: [world.ben, world.dmitri]
            ), draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/formatted", builder.conversation(ConversationSnapshot(
                chatID: ChatID(13), heading: world.general, messages: [
                    world.message(160, chat: 13, from: world.ben, "*Release* is _Friday_, ~Thursday~ moved. Run `make release` first.", at: "2026-11-20T12:00:00Z"),
                    world.message(161, chat: 13, from: world.dmitri, "> Can someone check the trains?\nOn it. Steps:\n1. Open https://parlor.chat/*trains*\n2. Pick **Friday**\n- bring snacks\n- tell @ana", at: "2026-11-20T12:10:00Z"),
                    world.message(162, chat: 13, from: world.ana, "```\nswift build -c release\n*not bold* <b>not a tag</b>\n```\nThat's all, _thanks_!", at: "2026-11-20T12:12:00Z"),
                ], people: [world.ben, world.dmitri]
            ), draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/reactions", builder.conversation(ConversationSnapshot(
                chatID: ChatID(13), heading: world.general, messages: [
                    world.message(170, chat: 13, from: world.ben, "Release is out!", at: "2026-11-20T12:00:00Z"),
                    world.message(171, chat: 13, from: world.ana, "Well done", at: "2026-11-20T12:01:00Z"),
                ], people: [world.ben], reactions: [
                    MessageID(170): [
                        ReactionCount(text: "🎉", people: [world.ana.id, world.dmitri.id], names: ["Ana Lima", "Dmitri Volkov"]),
                        ReactionCount(text: "🚀", people: [world.dmitri.id], names: ["Dmitri Volkov"]),
                    ],
                ]
            ), draft: ComposerDraft(token: "tok-next"))),
            Fixture("conversation/empty-room", builder.conversation(
                ConversationSnapshot(chatID: ChatID(15), heading: ChatHeading(kind: .closed, name: "Book club", topic: nil, memberCount: 1, contact: nil), messages: []),
                draft: ComposerDraft(token: "tok-next")
            )),
            Fixture("conversation/opened-with-unread", builder.conversation(snapshot, draft: ComposerDraft(token: "tok-next"), unreadAfter: MessageID(115))),
            Fixture("composer/empty-message-refused", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(text: "   ", errorMessage: "Write something before sending.", token: "tok-next"))),
            Fixture("composer/too-long", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(text: String(repeating: "a", count: 120), errorMessage: "Messages can be at most 4,000 characters; this one has 4,120.", token: "tok-next"))),
            Fixture("composer/sending", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(text: "On my way", isSending: true, token: "tok-next"))),
            Fixture("composer/replying", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(token: "tok-next", replyTo: reply))),
            Fixture("composer/editing", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(text: own.body, token: "tok-next", editing: own))),
            Fixture("composer/retrying", builder.composer(chat: ChatID(7), heading: .direct(with: world.ben), draft: ComposerDraft(text: "Running late", token: "tok-failed"))),
        ]
    }

    static var cells: [Fixture] {
        let world = FixtureWorld()
        let cells = MessageCellBuilder(context: world.context)
        let snapshot = world.conversationWithBen
        let edited = snapshot.messages[2]
        let reply = snapshot.messages[3]
        let link = snapshot.messages[1]
        return [
            Fixture("message-cell/from-contact-edited", cells.cell(edited, sender: world.ben)),
            Fixture("message-cell/own-reply-read", cells.cell(reply, sender: world.ana, quoted: (edited, world.ben), contactLastRead: MessageID(115))),
            Fixture("message-cell/own-sent-with-link", cells.cell(link, sender: world.ana, contactLastRead: MessageID(100))),
            Fixture("message-cell/own-with-link-preview", cells.cell(link.with(preview: LinkPreview(
                url: "https://example.org/menu", title: "Today's menu <b>& specials</b>", description: "Soup, bread and a pear tart.", siteName: "Example Bistro",
                image: PreviewImage(id: ImageID(42), width: 320, height: 168)
            )), sender: world.ana, contactLastRead: MessageID(100))),
            Fixture("message-cell/from-contact-with-link-preview", MessageCellBuilder(context: ViewerContext(viewer: world.ben, now: world.now, basePath: "")).cell(link.with(preview: LinkPreview(
                url: "https://example.org/menu", title: "Today's menu", description: nil, siteName: nil
            )), sender: world.ana)),
            Fixture("message-cell/own-sending", cells.cell(snapshot.pending[0])),
            Fixture("message-cell/own-failed", cells.cell(snapshot.pending[1])),
            Fixture("message-cell/own-deleted", cells.cell(reply.deleted(at: world.now), sender: world.ana, contactLastRead: MessageID(115))),
            Fixture("message-cell/continues-group", cells.cell(world.message(122, chat: 7, from: world.ben, "Platform 4.", at: "2026-11-20T13:02:00Z"), sender: world.ben, after: snapshot.messages[4])),
            Fixture("message-cell/continues-group-edited", cells.cell(
                world.message(123, chat: 7, from: world.ben, "Platform *5*, not 4.", at: "2026-11-20T13:02:00Z", edited: "2026-11-20T13:04:00Z"),
                sender: world.ben, after: snapshot.messages[4]
            )),
            Fixture("message-cell/photo-processing", cells.cell(
                world.message(140, chat: 8, from: world.chloe, "The lake at dawn", at: "2026-11-20T08:05:00Z")
                    .with(photo: MessagePhoto(id: ImageID(41), state: .pending, width: 320, height: 240)), sender: world.chloe
            )),
            Fixture("message-cell/photo-shown", cells.cell(
                world.message(141, chat: 8, from: world.chloe, "", at: "2026-11-20T08:06:00Z")
                    .with(photo: MessagePhoto(id: ImageID(42), state: .ready, width: 240, height: 320)), sender: world.chloe
            )),
            Fixture("message-cell/own-photo-failed", cells.cell(
                world.message(142, chat: 8, from: world.ana, "Here is mine", at: "2026-11-20T08:07:00Z")
                    .with(photo: MessagePhoto(id: ImageID(43), state: .failed, width: 320, height: 213)), sender: world.ana
            )),
            Fixture("message-cell/contact-with-picture", cells.cell(world.message(130, chat: 8, from: world.chloe, "Here are the photos from Sunday.\n\nMore tomorrow!", at: "2026-11-20T08:00:00Z"), sender: world.chloe)),
            Fixture("day-section/yesterday", DaySectionViewModel(domID: "day-7-2026-11-19", label: world.context.dates.dayLabel(edited.createdAt, now: world.now), messages: [cells.cell(edited, sender: world.ben)])),
        ]
    }

    static var forms: [Fixture] {
        let world = FixtureWorld()
        let create = CreateChatBuilder(context: world.context)
        let rooms = CreateRoomBuilder(context: world.context)
        let auth = AuthFormBuilder(paths: world.context.paths, csrfToken: "csrf-fixture-token")
        return [
            Fixture("create-chat/blank", create.form()),
            Fixture("create-chat/unknown-handle", create.form(handle: "zed", problem: .unknownHandle("zed"))),
            Fixture("create-chat/already-exists", create.form(handle: "ben", problem: .alreadyExists(ChatID(7), contactName: "Ben Okafor"))),
            Fixture("create-chat/sending", create.form(handle: "dmitri", isSending: true)),
            Fixture("create-room/blank", rooms.form()),
            Fixture("create-room/name-too-long", rooms.form(.init(name: String(repeating: "n", count: 81), topic: "Plans"), refusal: .invalidRoomName)),
            Fixture("create-room/unknown-member", rooms.form(.init(name: "Launch", members: "@ben @zed"), refusal: .unknownHandle("zed"))),
            Fixture("create-room/open", rooms.form(.init(name: "Announcements", kind: .open))),
            Fixture("create-room/could-not-save", rooms.form(.init(name: "Launch"), refusal: .unavailable)),
            Fixture("contact-suggestions/matches", create.suggestions(query: "d", matches: [.init(user: world.dmitri), .init(user: world.ben, existingChat: ChatID(7))])),
            Fixture("mention-suggestions/ch", RoomPagesBuilder.mentionSuggestions(
                "ch", members: [world.ana, world.ben, world.chloe, User(id: UserID(12), handle: "charlie", displayName: "Charlie Day")], viewer: world.ana.id,
                everyoneAllowed: true
            )),
            Fixture("mention-suggestions/e-in-a-large-room", RoomPagesBuilder.mentionSuggestions(
                "e", members: [world.ana, world.ben], viewer: world.ana.id, everyoneAllowed: false
            )),
            Fixture("contact-suggestions/no-match", create.suggestions(query: "zed", matches: [])),
            Fixture("auth-form/sign-up", auth.signUp()),
        ]
    }

    static var notifications: [Fixture] {
        let world = FixtureWorld()
        let pages = PageBuilder(context: world.context)
        return [
            Fixture("toast/new-message", pages.toast(world.message(131, chat: 9, from: world.bot, "I read your message.\nHere is my answer, which is long enough to be cut short in the notification because nobody reads a whole essay in a toast.", at: "2026-11-20T13:05:00Z"), from: world.bot)),
            Fixture("unread-badge/none", pages.unreadBadge(0)),
            Fixture("unread-badge/three", pages.unreadBadge(3)),
            Fixture("unread-badge/over-99", pages.unreadBadge(154)),
            Fixture("stream/remove-pending", StreamEnvelopeViewModel(action: "remove", target: "pending-tok-41", html: "")),
            Fixture("stream/prepend-chat-item", StreamEnvelopeViewModel(
                action: "prepend", target: "chat-list-direct",
                html: "<li class=\"chat-list-item\" id=\"chat-item-7\">\n<a href=\"/chats/7\">Ben Okafor</a>\n</li>\n"
            )),
        ]
    }

    static var conversationRegions: [Fixture] {
        let world = FixtureWorld()
        let open = ConversationBuilder(context: world.context).conversation(world.conversationWithBen, draft: ComposerDraft(token: "tok-next"))
        let room = ConversationBuilder(context: world.context).conversation(world.launchRoom, draft: ComposerDraft(token: "tok-next"))
        return [
            Fixture("conversation-messages/history", open.messages), Fixture("conversation-header/initials", open.header),
            Fixture("conversation-messages/room", room.messages), Fixture("conversation-header/room-with-topic", room.header),
            Fixture("conversation-header/room-of-500", ConversationBuilder(context: world.context).header(ChatID(13), world.general)),
        ]
    }

    /// The chat list in other locales and a time zone across the world: dates must look right there too.
    static var locales: [Fixture] {
        ["ja_JP", "fr_FR"].map { locale in
            let world = FixtureWorld(locale: locale, timeZone: locale == "ja_JP" ? "Asia/Tokyo" : "Europe/Paris")
            return Fixture("chat-list/\(locale)", ChatListBuilder(context: world.context).loaded(world.summaries, current: nil))
        } + {
            let world = FixtureWorld(locale: "en_US", timeZone: "America/Los_Angeles")
            return [Fixture("conversation/los-angeles", ConversationBuilder(context: world.context).conversation(world.conversationWithBen, draft: ComposerDraft(token: "tok-next")))]
        }()
    }
}
