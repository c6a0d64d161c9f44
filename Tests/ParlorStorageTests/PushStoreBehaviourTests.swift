import InMemoryStores
import Foundation
import ParlorDomain
import Testing

/// Push subscriptions, notification preferences and the VAPID key, the same in every store.
@Suite struct PushStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    static func push(_ world: World) throws -> any PushStore {
        if let store = world.store as? InMemoryChatStore { return InMemoryPushStore(chats: store) }
        return try #require(world.store as? any PushStore)
    }

    static func subscription(_ user: User, _ endpoint: String, label: String = "Chrome on Linux") -> PushSubscription {
        PushSubscription(id: 0, userID: user.id, endpoint: endpoint, p256dh: "key-\(endpoint)", auth: "auth", label: label, createdAt: .at(5))
    }

    @Test(arguments: StoreKind.allCases)
    func aBrowserIsToldForOnePersonAndOnlyItsOwnerRemovesIt(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let push = try Self.push(world)
        let first = try await push.addPushSubscription(Self.subscription(world.ana, "https://push.example/1"))
        let second = try await push.addPushSubscription(Self.subscription(world.ana, "https://push.example/2", label: "Firefox on Android"))
        #expect(first.id != second.id && first.label == "Chrome on Linux")
        #expect(try await push.pushSubscriptions(of: world.ana.id).map(\.endpoint) == ["https://push.example/1", "https://push.example/2"])
        let read = try #require(try await push.pushSubscriptions(of: world.ana.id).first)
        #expect(read == first, "everything kept, the date too")

        // Ben signs in on Ana's first browser and turns notifications on: the browser is his now.
        let taken = try await push.addPushSubscription(Self.subscription(world.ben, "https://push.example/1"))
        #expect(try await push.pushSubscriptions(of: world.ana.id).map(\.endpoint) == ["https://push.example/2"])
        #expect(try await push.pushSubscriptions(of: world.ben.id).map(\.id) == [taken.id])

        #expect(try await push.removePushSubscription(second.id, of: world.ben.id) == false, "not Ben's")
        #expect(try await push.pushSubscriptions(of: world.ana.id).count == 1)
        #expect(try await push.removePushSubscription(second.id, of: world.ana.id))
        #expect(try await push.pushSubscriptions(of: world.ana.id).isEmpty)
        try await push.removePushSubscription(endpoint: "https://push.example/1")
        #expect(try await push.pushSubscriptions(of: world.ben.id).isEmpty, "gone, as its push service said")
    }

    @Test(arguments: StoreKind.allCases)
    func aPersonKeepsTheirNewestBrowsersAndRemovesOneByItsAddress(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let push = try Self.push(world)
        for index in 1...4 { _ = try await push.addPushSubscription(Self.subscription(world.ana, "https://push.example/\(index)"), keepingNewest: 3) }
        let bens = try await push.addPushSubscription(Self.subscription(world.ben, "https://push.example/ben"), keepingNewest: 3)
        #expect(try await push.pushSubscriptions(of: world.ana.id).map(\.endpoint) == (2...4).map { "https://push.example/\($0)" }, "the oldest went")
        #expect(try await push.removePushSubscription(PushRemoval(userID: world.ana.id, which: .endpoint("https://push.example/ben"))) == false, "Ben's")
        #expect(try await push.pushSubscriptions(of: world.ben.id) == [bens])
        #expect(try await push.removePushSubscription(PushRemoval(userID: world.ana.id, which: .endpoint("https://push.example/3"))))
        #expect(try await push.pushSubscriptions(of: world.ana.id).map(\.endpoint) == ["https://push.example/2", "https://push.example/4"])
    }

    @Test(arguments: StoreKind.allCases)
    func recipientsAreTheOtherMembersWithSubscriptionsAsTheyFollowTheChat(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let push = try Self.push(world)
        let room = try await world.store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id], createdAt: .at(1)
        ))
        _ = try await push.addPushSubscription(Self.subscription(world.ana, "https://push.example/ana"))
        let bens = try await push.addPushSubscription(Self.subscription(world.ben, "https://push.example/ben"))
        _ = try await push.addPushSubscription(Self.subscription(world.chloe, "https://push.example/chloe"))
        try await push.setNotificationPreferences(NotificationPreferences(isPrivate: true), of: world.ben.id)

        let recipients = try await push.pushRecipients(in: room.id, excluding: world.ana.id)
        #expect(recipients == [PushRecipient(subscription: bens, handle: "ben", involvement: .mentions, isPrivate: true)], "not the sender, not Chloé")
        _ = try await world.store.setInvolvement(.nothing, in: room.id, for: world.ben.id)
        #expect(try await push.pushRecipients(in: room.id, excluding: world.ana.id).map(\.involvement) == [.nothing])
        #expect(try await push.pushRecipients(in: room.id, excluding: world.ben.id).map(\.handle) == ["ana"])
        #expect(try await push.notificationPreferences(of: world.ana.id) == NotificationPreferences())
        try await push.setNotificationPreferences(NotificationPreferences(isPrivate: false, appearsOffline: true), of: world.ben.id)
        #expect(try await push.notificationPreferences(of: world.ben.id) == NotificationPreferences(isPrivate: false, appearsOffline: true))
    }

    @Test(arguments: StoreKind.allCases)
    func theKeyIsMadeOnceAndANewOneEndsEverySubscription(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let push = try Self.push(world)
        let key = try await push.vapidKey(generate: { "first" })
        #expect(key == "first")
        #expect(try await push.vapidKey(generate: { "second" }) == "first", "kept")
        _ = try await push.addPushSubscription(Self.subscription(world.ana, "https://push.example/1"))
        try await push.replaceVapidKey(with: "rotated")
        #expect(try await push.vapidKey(generate: { "third" }) == "rotated")
        #expect(try await push.pushSubscriptions(of: world.ana.id).isEmpty, "browsers subscribe again with the new key")
    }
}
