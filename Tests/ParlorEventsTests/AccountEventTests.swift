import InMemoryStores
import Foundation
import ParlorDomain
import ParlorEvents
import Synchronization
import Testing

/// Account commands through the router: each stored change published once as its outcome (which every instance
/// hears), refusals published not at all, and administrators' commands checked at the moment they are applied.
@Suite struct AccountEventTests {
    /// Everything the bus carried.
    final class Recorded: Sendable {
        let events = Mutex<[DomainEvent]>([])
        var all: [DomainEvent] { events.withLock { $0 } }
    }

    struct World {
        let store = InMemoryChatStore()
        let recorded = Recorded()
        let router: EventRouter
        let ana: User
        let ben: User

        init() async throws {
            let bus = InProcessEventBus()
            let recorded = recorded
            bus.subscribe { published in recorded.events.withLock { $0.append(published.event) } }
            router = EventRouter(
                store: store, administration: store, accounts: store, push: InMemoryPushStore(chats: store), bus: bus,
                clock: ManualClock(Date(timeIntervalSince1970: 1_795_000_000))
            )
            guard case .signedUp(let ana) = await router.send(.signingUp(NewUser(handle: "ana", displayName: "Ana", passwordHash: "a"))),
                  case .signedUp(let ben) = await router.send(.signingUp(NewUser(handle: "ben", displayName: "Ben", passwordHash: "b")))
            else { throw Refusal.unavailable }
            self.ana = ana
            self.ben = ben
            recorded.events.withLock { $0 = [] }
        }

        func session(_ hash: String, of user: User) -> StoredSession {
            StoredSession(idHash: hash, userID: user.id, csrfToken: "t", createdAt: Date(timeIntervalSince1970: 0), expiresAt: .distantFuture)
        }
    }

    @Test func sessionsStartAndEndAsEventsThatNameNoSecret() async throws {
        let world = try await World()
        for hash in ["laptop", "phone", "tablet"] {
            #expect(await world.router.send(.signingIn(world.session(hash, of: world.ana))) == .signedIn(world.ana.id))
        }
        #expect(await world.router.send(.signingOut(sessionHash: "phone")) == .sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .signedOut)))
        #expect(await world.router.send(.signingOut(sessionHash: "phone")) == .refused(.notFound), "gone already: nothing ended, nobody told")
        let change = PasswordChange(userID: world.ana.id, passwordHash: "new", keeping: "laptop")
        #expect(await world.router.send(.changingPassword(change)) == .sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .passwordChanged)))
        #expect(await world.router.send(.resettingPassword(handle: "@ANA", passwordHash: "reset")) == .sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .passwordReset)))
        #expect(await world.router.send(.resettingPassword(handle: "nobody", passwordHash: "x")) == .refused(.notFound))
        #expect(await world.router.send(.resettingPassword(handle: "not a handle!", passwordHash: "x")) == .refused(.invalidHandle))
        #expect(world.recorded.all == [
            .account(.signedIn(world.ana.id)), .account(.signedIn(world.ana.id)), .account(.signedIn(world.ana.id)),
            .account(.sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .signedOut))),
            .account(.sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .passwordChanged))),
            .account(.sessionsEnded(SessionsEnded(userID: world.ana.id, count: 1, cause: .passwordReset))),
        ])
        #expect(world.recorded.all.allSatisfy { $0.isStoredChange }, "only stored outcomes travel: never a command, with its hash")
    }

    @Test func administratorsCommandsAreCheckedWhenTheyAreApplied() async throws {
        let world = try await World()
        // Ana came first: the administrator. Ben is a member, and every command of an administrator's is refused to him.
        let link = JoinLink(code: "c0de", createdAt: Date(timeIntervalSince1970: 0), expiresAt: nil, usesLimit: nil, uses: 0)
        for command: AccountEvent in [
            .changingRole(RoleChange(person: world.ben.id, role: .administrator, by: world.ben.id)),
            .changingSettings(SettingsChange(signUpPolicy: .invitation, by: world.ben.id)),
            .replacingJoinLink(link, by: world.ben.id),
            .replacingBotKey(bot: world.ben.id, keyHash: "k", by: world.ben.id),
        ] {
            #expect(await world.router.send(command) == .refused(.administratorsOnly), "\(command)")
        }
        #expect(world.recorded.all.isEmpty)
        #expect(try await world.store.settings().signUpPolicy == .open)

        #expect(await world.router.send(.changingRole(RoleChange(person: world.ben.id, role: .administrator, by: world.ana.id))) == .roleChanged(person: world.ben.id, .administrator))
        #expect(await world.router.send(.changingSettings(SettingsChange(signUpPolicy: .invitation, by: world.ben.id))) == .settingsChanged, "he is one now")
        #expect(await world.router.send(.replacingJoinLink(link, by: nil)) == .joinLinkReplaced, "the operator, at the machine")
        #expect(await world.router.send(.changingRole(RoleChange(person: world.ana.id, role: .member, by: world.ben.id))) == .roleChanged(person: world.ana.id, .member))
        #expect(await world.router.send(.changingRole(RoleChange(person: world.ben.id, role: .member, by: world.ben.id))) == .refused(.lastAdministrator))
        #expect(try await world.store.settings().signUpPolicy == .invitation && world.recorded.all.count == 4)
    }

    @Test func pushChoicesAreEventsAndARemovalOfNothingIsRefused() async throws {
        let world = try await World()
        let browser = PushSubscription(id: 0, userID: world.ana.id, endpoint: "https://push.example/1", p256dh: "k", auth: "a", label: "Firefox", createdAt: .distantPast)
        #expect(await world.router.send(.subscribingPush(browser, limit: 20)) == .pushSubscriptionsChanged(world.ana.id))
        let preferences = NotificationPreferences(isPrivate: true, appearsOffline: true)
        #expect(await world.router.send(.changingPreferences(world.ana.id, preferences)) == .preferencesChanged(world.ana.id, preferences))
        let bens = PushRemoval(userID: world.ben.id, which: .endpoint("https://push.example/1"))
        #expect(await world.router.send(.unsubscribingPush(bens)) == .refused(.notFound), "not his browser")
        let anas = PushRemoval(userID: world.ana.id, which: .endpoint("https://push.example/1"))
        #expect(await world.router.send(.unsubscribingPush(anas)) == .pushSubscriptionsChanged(world.ana.id))
        #expect(world.recorded.all == [
            .account(.pushSubscriptionsChanged(world.ana.id)), .account(.preferencesChanged(world.ana.id, preferences)),
            .account(.pushSubscriptionsChanged(world.ana.id)),
        ])
    }

    @Test func aRouterWithoutTheStoresSaysUnavailable() async {
        let store = InMemoryChatStore()
        let router = EventRouter(store: store, bus: InProcessEventBus(), clock: ManualClock(Date()))
        #expect(await router.send(.signingOut(sessionHash: "x")) == .refused(.unavailable))
        #expect(await router.send(.changingPreferences(UserID(1), NotificationPreferences())) == .refused(.unavailable))
    }
}
