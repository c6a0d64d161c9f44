import Foundation
import ParlorDomain
import Testing

/// What every store does with images and accounts, run against each backend: a photo pending, then ready
/// or gone with its message; an avatar seen by those who share a chat; a password change ending the other
/// sessions.
@Suite struct ImageStoreBehaviourTests {
    static func version(_ role: ImageRole, _ hash: String, width: Int = 320, height: Int = 240) -> StoredImageVersion {
        StoredImageVersion(role: role, format: .jpeg, width: width, height: height, hash: hash, byteCount: 1_000)
    }

    /// Ana sends Ben a photo in a new chat of theirs.
    static func photoSent(
        _ world: ChatStoreBehaviourTests.World, _ store: any ChatStore & ImageStore, body: String, number: Int, width: Int, height: Int
    ) async throws -> Message {
        let chat = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        return try await store.send(OutgoingMessage(
            chatID: chat.id, senderID: world.ana.id, body: body, token: "photo-\(number)", createdAt: .at(1),
            photo: NewPhoto(original: "upload-\(number)", width: width, height: height)
        ))
    }

    @Test(arguments: StoreKind.allCases)
    func aPhotoIsPendingThenReadyAndGoesWithItsMessage(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let store = world.store as! any ChatStore & ImageStore
        let sent = try await Self.photoSent(world, store, body: "", number: 1, width: 4_000, height: 3_000)
        let photo = try #require(sent.photo)
        #expect(photo.state == .pending && photo.width == 4_000)
        #expect(try await store.pendingPhotos() == [PendingPhoto(imageID: photo.id, original: "upload-1")])
        #expect(try await store.image(photo.id, visibleTo: world.ben.id)?.state == .pending, "Ben is in the chat")
        #expect(try await store.image(photo.id, visibleTo: world.chloe.id) == nil, "Chloé is not")

        let versions = [Self.version(.thumbnail, "aa11", width: 320, height: 240), Self.version(.display, "bb22", width: 1_600, height: 1_200)]
        let ready = try #require(try await store.finishPhoto(PhotoResult(imageID: photo.id, versions: versions)))
        #expect(ready.photo == MessagePhoto(id: photo.id, state: .ready, width: 320, height: 240), "the cell's size is the thumbnail's")
        #expect(try await store.message(sent.id)?.photo == ready.photo)
        #expect(try await store.pendingPhotos().isEmpty)
        #expect(try await store.finishPhoto(PhotoResult(imageID: photo.id, versions: versions)) == nil, "finished once")
        let stored = try #require(try await store.image(photo.id, visibleTo: world.ben.id))
        #expect(stored.state == .ready && Set(stored.versions) == Set(versions) && stored.messageID == sent.id)
        #expect(try await store.imageHashes().isSuperset(of: ["aa11", "bb22"]))

        // Deleted with its message.
        _ = try await store.delete(MessageDeletion(messageID: sent.id, requesterID: world.ana.id, deletedAt: .at(2)))
        #expect(try await store.image(photo.id, visibleTo: world.ana.id) == nil)
        #expect(try await store.message(sent.id)?.photo == nil)
        #expect(try await store.imageHashes().isDisjoint(with: ["aa11", "bb22"]), "the sweep takes its files")

        // The next photo never has its id: browsers keep a photo's file for a year under its id.
        let next = try await store.send(OutgoingMessage(
            chatID: sent.chatID, senderID: world.ana.id, body: "", token: "photo-2", createdAt: .at(3),
            photo: NewPhoto(original: "upload-2", width: 800, height: 600)
        ))
        #expect(try #require(next.photo).id != photo.id)
    }

    /// The image view's previous and next: the chat's photos in order, not another chat's, not deleted ones.
    @Test(arguments: StoreKind.allCases)
    func thePhotosAroundOneAreItsChatsNeighbours(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let store = world.store as! any ChatStore & ImageStore
        let chat = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        let other = try await store.createChat(between: world.ana.id, and: world.chloe.id, at: .at(0))
        func send(_ chat: ChatID, _ number: Int, photo: Bool) async throws -> Message {
            try await store.send(OutgoingMessage(
                chatID: chat, senderID: world.ana.id, body: photo ? "" : "text \(number)", token: "around-\(number)", createdAt: .at(Double(number)),
                photo: photo ? NewPhoto(original: "upload-around-\(number)", width: 40, height: 30) : nil
            ))
        }
        let first = try await send(chat.id, 1, photo: true)
        _ = try await send(chat.id, 2, photo: false)
        let elsewhere = try await send(other.id, 3, photo: true)
        let second = try await send(chat.id, 4, photo: true)
        let gone = try await send(chat.id, 5, photo: true)
        let third = try await send(chat.id, 6, photo: true)
        _ = try await store.delete(MessageDeletion(messageID: gone.id, requesterID: world.ana.id, deletedAt: .at(7)))
        #expect(try await store.photosAround(second.id, in: chat.id) == PhotosAround(previous: first.photo?.id, next: third.photo?.id))
        #expect(try await store.photosAround(first.id, in: chat.id) == PhotosAround(previous: nil, next: second.photo?.id))
        #expect(try await store.photosAround(third.id, in: chat.id) == PhotosAround(previous: second.photo?.id, next: nil))
        #expect(try await store.photosAround(elsewhere.id, in: other.id) == PhotosAround(previous: nil, next: nil))
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedPhotoStaysFailed(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let store = world.store as! any ChatStore & ImageStore
        let sent = try await Self.photoSent(world, store, body: "look", number: 2, width: 10, height: 20)
        let failed = try #require(try await store.finishPhoto(PhotoResult(imageID: sent.photo!.id, versions: nil)))
        #expect(failed.photo?.state == .failed && failed.photo?.width == 10)
        #expect(try await store.pendingPhotos().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func anAvatarIsSeenByThoseWhoShareAChat(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let store = world.store as! any ChatStore & ImageStore
        _ = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        let face = NewImage(ownerID: world.ana.id, purpose: .avatar, versions: [Self.version(.thumbnail, "cc33")], createdAt: .at(1))
        let ana = try await store.updateProfile(ProfileChange(userID: world.ana.id, avatar: face))
        let avatar = try #require(ana.avatar)
        #expect(try await store.user(world.ana.id)?.avatar == avatar)
        #expect(try await store.image(avatar, visibleTo: world.ana.id)?.purpose == .avatar)
        #expect(try await store.image(avatar, visibleTo: world.ben.id) != nil, "Ben shares a chat with Ana")
        #expect(try await store.image(avatar, visibleTo: world.chloe.id) == nil, "Chloé does not")
        #expect(try await store.updateProfile(ProfileChange(userID: world.ana.id, removesAvatar: true)).avatar == nil)
        #expect(try await store.image(avatar, visibleTo: world.ana.id) != nil, "the image stays for what showed it")
    }

    @Test(arguments: StoreKind.allCases)
    func aPasswordChangeEndsEveryOtherSession(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let accounts = world.store as! any ChatStore & AccountStore
        let dana = try await accounts.createUser(NewUser(handle: "dana", displayName: "Dana", passwordHash: "old-hash"), at: .at(0))
        for name in ["laptop", "phone", "tablet"] {
            try await accounts.createSession(StoredSession(idHash: name, userID: dana.id, csrfToken: "t-\(name)", createdAt: .at(0), expiresAt: .at(1_000)))
        }
        #expect(try await accounts.credential(handle: "DANA")?.passwordHash == "old-hash", "handles match whatever their case")
        #expect(try await accounts.changePassword(of: dana.id, to: "new-hash", keeping: "laptop") == 2)
        #expect(try await accounts.credential(handle: "dana")?.passwordHash == "new-hash")
        #expect(try await accounts.session(idHash: "laptop", now: .at(1)) != nil)
        #expect(try await accounts.session(idHash: "phone", now: .at(1)) == nil)
        await #expect(throws: Refusal.notFound) { try await accounts.changePassword(of: world.ben.id, to: "x", keeping: "none") }
        #expect(try await accounts.deleteSession(idHash: "laptop") == dana.id, "whose session it was")
        #expect(try await accounts.liveSession(idHash: "laptop", now: .at(1)) == nil)
        #expect(try await accounts.deleteSession(idHash: "laptop") == nil, "gone already")
    }

    @Test(arguments: StoreKind.allCases)
    func signingOutEverywhereKeepsOnlyTheBrowserThatAskedAndStreamsAskWhichSessionsLive(_ kind: StoreKind) async throws {
        let world = try await ChatStoreBehaviourTests.World(kind)
        let accounts = try #require(world.store as? any AccountStore)
        for (id, user) in [("ana-laptop", world.ana), ("ana-phone", world.ana), ("ana-tablet", world.ana), ("ben-laptop", world.ben)] {
            try await accounts.createSession(StoredSession(idHash: id, userID: user.id, csrfToken: "t", createdAt: .at(0), expiresAt: .at(100)))
        }
        try await accounts.createSession(StoredSession(idHash: "ana-old", userID: world.ana.id, csrfToken: "t", createdAt: .at(0), expiresAt: .at(5)))
        let all = ["ana-laptop", "ana-phone", "ana-tablet", "ben-laptop", "ana-old", "nobody's"]
        #expect(try await accounts.liveSessions(among: all, now: .at(10)) == ["ana-laptop", "ana-phone", "ana-tablet", "ben-laptop"], "expired and unknown ones are not")
        #expect(try await accounts.endSessions(of: world.ana.id, keeping: "ana-phone") == 3)
        #expect(try await accounts.liveSessions(among: all, now: .at(10)) == ["ana-phone", "ben-laptop"])
        #expect(try await accounts.endSessions(of: world.ana.id, keeping: nil) == 1)
        #expect(try await accounts.liveSessions(among: all, now: .at(10)) == ["ben-laptop"], "someone else's stays")
        // More than one statement's worth of ids is asked in slices.
        let many = (0..<1_200).map { "missing-\($0)" } + ["ben-laptop"]
        #expect(try await accounts.liveSessions(among: many, now: .at(10)) == ["ben-laptop"])
        #expect(try await accounts.liveSessions(among: [], now: .at(10)).isEmpty)
    }
}
