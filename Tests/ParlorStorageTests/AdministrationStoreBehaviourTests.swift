import Foundation
import ParlorDomain
import Testing

/// Roles, sign-up policy, join links and deactivation, the same in every store.
@Suite struct AdministrationStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    func administration(_ world: World) throws -> any AdministrationStore {
        try #require(world.store as? any AdministrationStore)
    }

    @Test(arguments: StoreKind.allCases)
    func theFirstPersonIsTheAdministratorAndAPolicyIsKeptOnce(_ kind: StoreKind) async throws {
        let folder = try TemporaryFolder()
        let store = try await kind.make(in: folder)
        let admin = try #require(store as? any AdministrationStore)
        // A new Parlor: the policy its first start names is kept; a later start's is not.
        #expect(try await admin.startSettings(signUpPolicy: .invitation).signUpPolicy == .invitation)
        #expect(try await admin.startSettings(signUpPolicy: .open).signUpPolicy == .invitation)
        let bot = try await store.createUser(NewUser(handle: "parlorbot", displayName: "Parlor Bot", isBot: true), at: .at(0))
        #expect(try await admin.settings().hasPeople == false, "a bot is nobody's first run")
        #expect(try await admin.account(bot.id) == nil)

        // The first person needs no link (there is nobody to give them one) and is the administrator.
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana", passwordHash: "h"), at: .at(1))
        #expect(try await admin.account(ana.id)?.role == .administrator)
        #expect(try await admin.settings().hasPeople)
        // The next needs the link.
        await #expect(throws: Refusal.invitationRequired) {
            try await store.createUser(NewUser(handle: "ben", displayName: "Ben", passwordHash: "h"), at: .at(2))
        }
        await #expect(throws: Refusal.joinLinkInvalid, "no link made yet") {
            try await store.createUser(NewUser(handle: "ben", displayName: "Ben", passwordHash: "h", joinCode: "guess"), at: .at(2))
        }
        #expect(try await store.user(handle: "ben") == nil, "nothing was created")
    }

    @Test(arguments: StoreKind.allCases)
    func aJoinLinkLetsPeopleInUntilItIsRotatedExpiredOrUsedUp(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let admin = try administration(world)
        try await admin.setSignUpPolicy(.invitation)
        try await admin.replaceJoinLink(JoinLink(code: "first-code", createdAt: .at(10), expiresAt: .at(100), usesLimit: 2))
        func join(_ handle: String, _ code: String?, at seconds: Double) async throws -> User {
            try await world.store.createUser(NewUser(handle: handle, displayName: handle, passwordHash: "h", joinCode: code), at: .at(seconds))
        }
        let dan = try await join("dan", "first-code", at: 20)
        #expect(try await admin.account(dan.id)?.role == .member)
        #expect(try await admin.settings().joinLink?.uses == 1)
        await #expect(throws: Refusal.joinLinkInvalid) { try await join("eve", "first-cod", at: 21) }
        await #expect(throws: Refusal.joinLinkExpired) { try await join("eve", "first-code", at: 100) }
        _ = try await join("eve", "first-code", at: 30)
        await #expect(throws: Refusal.joinLinkUsedUp) { try await join("fay", "first-code", at: 31) }
        #expect(try await admin.settings().joinLink?.uses == 2, "a refused sign-up counts no use")

        // Rotated: the old code names nothing; the new one works. Open again: nobody needs one.
        try await admin.replaceJoinLink(JoinLink(code: "second-code", createdAt: .at(40)))
        await #expect(throws: Refusal.joinLinkInvalid) { try await join("fay", "first-code", at: 41) }
        _ = try await join("fay", "second-code", at: 42)
        try await admin.setSignUpPolicy(.open)
        _ = try await join("gus", nil, at: 43)
        let settings = try await admin.settings()
        #expect(settings.signUpPolicy == .open && settings.joinLink?.code == "second-code" && settings.joinLink?.uses == 1)
        try await admin.setOnlyAdministratorsCreateRooms(true)
        #expect(try await admin.settings().onlyAdministratorsCreateRooms)
    }

    @Test(arguments: StoreKind.allCases)
    func rolesChangeButTheLastAdministratorStays(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let admin = try administration(world)
        #expect(try await admin.account(world.ana.id)?.role == .administrator)
        #expect(try await admin.account(world.ben.id)?.role == .member)
        await #expect(throws: Refusal.lastAdministrator) { try await admin.setRole(.member, of: world.ana.id) }
        await #expect(throws: Refusal.lastAdministrator) { try await admin.deactivate(world.ana.id, at: .at(5)) }
        #expect(try await admin.setRole(.administrator, of: world.ben.id).role == .administrator)
        #expect(try await admin.setRole(.member, of: world.ana.id).role == .member)
        await #expect(throws: Refusal.notFound) { try await admin.setRole(.member, of: UserID(999_999)) }

        let people = try await admin.accounts(matching: "", limit: 10)
        #expect(people.map(\.user.handle) == ["ana", "ben", "chloe"] && people.map(\.role) == [.member, .administrator, .member])
        #expect(try await admin.accounts(matching: "CHL", limit: 10).map(\.user.handle) == ["chloe"])
        #expect(try await admin.accounts(matching: "%", limit: 10).isEmpty, "the pattern's own characters are only characters")
    }

    @Test(arguments: StoreKind.allCases)
    func aDeactivatedPersonLeavesEveryRoomAndSessionAndComesBackToTheOpenOnes(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let admin = try administration(world)
        let accounts = try #require(world.store as? any AccountStore)
        let general = try #require(try await world.store.createFirstRoom(NewRoom(
            creator: world.ana.id, kind: .open, name: "General", topic: nil, members: [], createdAt: .at(1)
        )))
        let launch = try await world.store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id], createdAt: .at(1)
        ))
        let direct = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        let words = try await world.send(launch.id, from: world.ben, "Ready", at: 2)
        try await accounts.createSession(StoredSession(idHash: "ben-session", userID: world.ben.id, csrfToken: "t", createdAt: .at(2), expiresAt: .at(1_000)))

        let state = try await admin.deactivate(world.ben.id, at: .at(3))
        #expect(state.user.id == world.ben.id && !state.isActive && Set(state.rooms) == [general.id, launch.id])
        #expect(try await accounts.liveSession(idHash: "ben-session", now: .at(4)) == nil)
        #expect(try await world.store.chat(launch.id)?.members == [world.ana.id])
        #expect(try await world.store.chat(general.id)?.hasMember(world.ben.id) == false)
        #expect(try await world.store.chat(direct.id)?.hasMember(world.ben.id) == true, "a direct chat keeps its people")
        #expect(try await world.store.message(words.id)?.body == "Ready", "their words stay")
        #expect(try await world.store.user(handle: "ben") == nil, "nobody finds them by handle")
        #expect(try await world.store.users(matching: "be", excluding: world.ana.id, limit: 5).isEmpty)
        #expect(try await world.store.user(world.ben.id)?.displayName == "Ben Okafor", "their name still shows on their messages")
        let credential = try await accounts.credential(handle: "ben")
        #expect(credential == nil || credential?.isDeactivated == true)
        let listed = try await admin.rooms(limit: 10)
        #expect(listed.map(\.name) == ["General", "Launch"] && listed.map(\.memberCount) == [2, 1])
        await #expect(throws: Refusal.notFound, "already deactivated") { try await admin.deactivate(world.ben.id, at: .at(5)) }
        let room = try await world.store.createRoom(NewRoom(creator: world.ana.id, kind: .open, name: "Random", topic: nil, members: [], createdAt: .at(6)))
        #expect(!room.hasMember(world.ben.id), "an open room made meanwhile does not take them")

        let back = try await admin.reactivate(world.ben.id, at: .at(7))
        #expect(back.isActive && Set(back.rooms) == [general.id, room.id])
        #expect(try await world.store.chat(general.id)?.hasMember(world.ben.id) == true)
        #expect(try await world.store.chat(launch.id)?.hasMember(world.ben.id) == false, "a closed room takes them when someone adds them")
        #expect(try await admin.rooms(limit: 10).first { $0.id == general.id }?.memberCount == 3)
        await #expect(throws: Refusal.notFound) { try await admin.reactivate(world.ben.id, at: .at(8)) }
        #expect(try await world.store.user(handle: "ben")?.id == world.ben.id)
    }

    @Test(arguments: StoreKind.allCases)
    func aDeactivatedBotsKeyOpensNothingUntilItIsReactivated(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let admin = try administration(world)
        let bot = try await world.store.createUser(
            NewUser(handle: "deploy", displayName: "Deploy Bot", isBot: true, bot: BotCredential(keyHash: "key-hash", webhookURL: nil)), at: .at(1)
        )
        let feeds = try await world.store.createUser(NewUser(handle: "feeds", displayName: "Feeds", isBot: true), at: .at(1))
        #expect(try await admin.bot(keyHash: "key-hash")?.isActive == true)

        let state = try await admin.deactivate(bot.id, at: .at(2))
        #expect(!state.isActive && state.user.id == bot.id)
        #expect(try await admin.bot(keyHash: "key-hash") == nil, "its key opens nothing")
        #expect(try await admin.bot(bot.id)?.isActive == false)
        #expect(try await admin.bots().map(\.isActive) == [false], "listed, deactivated")
        #expect(try await admin.account(bot.id) == nil, "not among the people")
        await #expect(throws: Refusal.notFound, "Parlor's own accounts are no one's to deactivate") { try await admin.deactivate(feeds.id, at: .at(3)) }

        _ = try await admin.reactivate(bot.id, at: .at(4))
        #expect(try await admin.bot(keyHash: "key-hash")?.user.id == bot.id)
    }

    @Test(arguments: StoreKind.allCases)
    func aPasswordResetEndsEverySession(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let admin = try administration(world)
        let accounts = try #require(world.store as? any AccountStore)
        for id in ["one", "two"] {
            try await accounts.createSession(StoredSession(idHash: id, userID: world.ana.id, csrfToken: "t", createdAt: .at(1), expiresAt: .at(1_000)))
        }
        _ = try await world.store.createUser(NewUser(handle: "parlorbot", displayName: "Parlor Bot", isBot: true), at: .at(0))
        #expect(try await admin.resetPassword(handle: "ana", to: "new-hash") == SessionsEnded(userID: world.ana.id, count: 2, cause: .passwordReset))
        #expect(try await accounts.liveSession(idHash: "one", now: .at(2)) == nil)
        #expect(try await accounts.credential(handle: "ana")?.passwordHash == "new-hash")
        await #expect(throws: Refusal.notFound) { try await admin.resetPassword(handle: "nobody", to: "x") }
        await #expect(throws: Refusal.notFound, "a bot never signs in") { try await admin.resetPassword(handle: "parlorbot", to: "x") }
    }
}
