import Foundation
import ParlorDomain
import ParlorStorage
import Synchronization
import Testing

/// Databases written by earlier releases (`Tests/ReleaseDatabases`, made through the web front by the script
/// beside them) open with today's store, every migration applied, nothing lost. Each is copied first: the
/// repository's file is never written.
@Suite struct ReleaseDatabaseTests {
    static let releases = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ReleaseDatabases")

    /// The release of 2026-11-26: one-to-one chats, before rooms.
    @Test func theOneToOneReleaseOpensWithEveryChatMessagePhotoReadMarkAndFeed() async throws {
        let folder = try TemporaryFolder()
        let release = Self.releases.appendingPathComponent("one-to-one")
        try FileManager.default.copyItem(at: release.appendingPathComponent("parlor.sqlite"), to: folder.url.appendingPathComponent("parlor.sqlite"))
        let progress = Mutex<[Int]>([])
        let store = try SQLiteChatStore(path: folder.path("parlor.sqlite"), searchProgress: { done, _ in progress.withLock { $0.append(done) } })
        #expect(progress.withLock { $0.last ?? 0 } > 0, "the messages it held were indexed for search at start")

        let ana = try #require(try await store.user(handle: "ana"))
        let ben = try #require(try await store.user(handle: "ben"))
        let chloe = try #require(try await store.user(handle: "chloe"))
        #expect(ana.displayName == "Ana Lima" && ana.timeZoneIdentifier == "Europe/Paris" && chloe.displayName == "Chloé Martin")

        // Ana's list: the chats with Chloé (the feed's post came last), Ben and Parlor Bot.
        let list = try await store.chatList(for: ana.id)
        #expect(list.map(\.contact?.handle) == ["chloe", "ben", "parlor"])
        #expect(list.allSatisfy { $0.heading.kind == .direct && $0.heading.memberCount == 2 }, "every chat became a direct chat of two")
        let withBen = try #require(list.first { $0.contact?.id == ben.id })
        let withChloe = try #require(list.first { $0.contact?.id == chloe.id })
        #expect(withBen.lastMessage?.body == "Our office" && withBen.unreadCount == 1, "Ben's photo is unread for Ana")

        // The conversation with Ben: a reply, an edit, a deletion, a processed photo, in order.
        let page = try await store.messages(in: withBen.chatID, before: nil, limit: 50)
        #expect(page.messages.map(\.body) == ["Lunch at noon? https://example.org/menu", "Yes, see you there", "Bring the keys, please", "", "Our office"])
        #expect(page.messages[1].replyTo == page.messages[0].id && page.messages[1].senderID == ben.id)
        #expect(page.messages[2].editedAt != nil && page.messages[3].isDeleted && !page.hasOlder)
        let photo = try #require(page.messages[4].photo)
        #expect(photo.state == .ready && photo.width == 64 && photo.height == 48)
        let image = try #require(try await store.image(photo.id, visibleTo: ana.id))
        #expect(try await store.image(photo.id, visibleTo: chloe.id) == nil, "only the chat's members see it")
        let thumbnail = try #require(image.version(.thumbnail))
        let files = try FileManager.default.contentsOfDirectory(atPath: release.appendingPathComponent("media/\(thumbnail.hash.prefix(2))").path)
        #expect(files.contains { $0.hasPrefix(thumbnail.hash + ".") }, "the photo's file is where its hash says")

        // Read marks: Ben read everything Ana sent; Chloé read nothing.
        #expect(try await store.membership(withBen.chatID, ben.id)?.lastRead == page.messages[4].id)
        #expect(try await store.membership(withChloe.chatID, chloe.id)?.lastRead == nil)
        #expect(try await store.unreadTotal(for: chloe.id) == 3, "Ana's message, the feed's post and Parlor Bot's welcome")

        // Ana's avatar, and the feed followed in her chat with Chloé with the item it posted.
        let avatar = try #require(ana.avatar)
        #expect(try await store.image(avatar, visibleTo: chloe.id)?.purpose == .avatar)
        let subscriptions = try #require(try await store.feedSubscriptions(in: withChloe.chatID, viewer: ana.id))
        #expect(subscriptions.count == 1 && subscriptions[0].url.hasSuffix("/feed.xml"))
        // Rooms came after this release: each chat became a direct one, followed fully by both its people since it was made.
        for summary in list {
            let chat = try #require(try await store.chat(summary.chatID))
            #expect(chat.kind == .direct && chat.name == nil && chat.members.count == 2)
            for member in chat.members {
                let membership = try #require(try await store.membership(chat.id, member))
                #expect(membership.involvement == .everything && membership.joinedAt == chat.createdAt)
            }
        }

        let post = try #require(withChloe.lastMessage?.feed)
        #expect(post.source == "Parlor News" && post.title == "Rooms are coming" && post.link == "https://example.org/rooms")

        // Search finds what the release stored: words in a link, an edited message by its text, never the deleted one.
        func found(_ text: String) async throws -> [String] {
            try await store.search(MessageSearch(viewer: ana.id, query: .parse(text), dayStart: { _ in nil })).messages.map(\.body)
        }
        #expect(try await found("menu") == ["Lunch at noon? https://example.org/menu"])
        #expect(try await found("keys") == ["Bring the keys, please"])
        // Editing an old message after the index was built keeps the index right; opening again indexes nothing more.
        let keys = page.messages[2]
        _ = try await store.edit(MessageEdit(messageID: keys.id, editorID: keys.senderID, body: "Bring the badge, please", editedAt: Date()))
        #expect(try await found("keys").isEmpty)
        #expect(try await found("badge") == ["Bring the badge, please"])
        let again = Mutex(0)
        _ = try SQLiteChatStore(path: folder.path("parlor.sqlite"), searchProgress: { _, _ in again.withLock { $0 += 1 } })
        #expect(again.withLock { $0 } == 0)

        // Administration came after it too: the first person to sign up runs it, everyone else is a member, and a
        // Parlor that let anyone in still does (a new start's --signup does not change that).
        #expect(try await store.account(ana.id)?.role == .administrator)
        #expect(try await store.account(ben.id)?.role == .member)
        #expect(try await store.account(chloe.id)?.isActive == true)
        let settings = try await store.startSettings(signUpPolicy: .invitation)
        #expect(settings.signUpPolicy == .open && settings.hasPeople && settings.joinLink == nil)
        // Parlor Bot became a bot like the ones administrators make (with a key nobody is given); the feeds' account did not.
        let bots = try await store.bots()
        #expect(bots.map(\.user.handle) == ["parlor"] && bots.first?.webhookURL == nil)
    }
}
