import Foundation
import ParlorBots
import ParlorDomain
import ParlorEvents
import Testing

/// Parlor Bot talks through the same events as a person. Tests await the work it took on (``ParlorBot/handled(_:)``)
/// rather than sleep.
@Suite struct ParlorBotTests {
    @Test(arguments: Backend.allCases)
    func theBotGreetsANewcomerReadsTheirMessageAndAnswers(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        #expect(bot.user.handle == "parlor" && bot.user.isBot)

        guard case .signedUp(let dmitri) = await world.router.send(.signingUp(NewUser(handle: "dmitri", displayName: "Dmitri Volkov"))) else {
            Issue.record("sign-up failed"); return
        }
        await bot.handled(1)
        #expect(try await world.store.chatList(for: dmitri.id).first?.lastMessage?.senderID == bot.user.id)
        let chat = try #require(try await world.store.chatList(for: dmitri.id).first)
        #expect(chat.contact?.displayName == "Parlor Bot")
        #expect(chat.lastMessage?.body.hasPrefix("Welcome to Parlor, Dmitri Volkov!") == true)

        let stored = try await world.store.chat(chat.chatID)
        let botChat = try #require(stored)
        let (page, _) = try await world.page(dmitri, open: botChat)
        page.clear()
        let hello = try await world.send(botChat, dmitri, "hello bot")
        await bot.handled(2)
        #expect(try await world.store.chatList(for: dmitri.id).first?.lastMessage?.replyTo == hello.id)
        let answer = try #require(try await world.store.chatList(for: dmitri.id).first?.lastMessage)
        #expect(answer.senderID == bot.user.id && answer.body == "Hello! Nice to hear from you.")
        #expect(try await world.store.membership(chat.chatID, bot.user.id)?.lastRead == hello.id)
        await world.handler.settled()
        #expect(page.fragments.compactMap(\.messageCell).contains { $0.domID == "message-\(answer.id)" })
        #expect(page.fragments.compactMap(\.messageCell).contains { $0.domID == "message-\(hello.id)" && $0.delivery?.label == "Read" })
    }

    @Test func theBotStaysOutOfOtherPeoplesChatsAndIsStartedOnce() async throws {
        let world = try await ChatWorld()
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        let again = try await ParlorBot.start(router: EventRouter(store: world.store, bus: InProcessEventBus(), clock: world.clock), store: world.store, clock: world.clock)
        #expect(again.user == bot.user)
        let chat = try await world.chat(world.ana, world.ben)
        let message = try await world.send(chat, world.ana, "hello Ben")
        await bot.handled(1)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages == [message])
        #expect(bot.failures == 0, "staying out is not a failure")
    }

    @Test func inARoomTheBotAnswersOnlyWhenMentioned() async throws {
        let world = try await ChatWorld()
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Ops", memberHandles: ["@parlor", "ben"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        #expect(room.members.contains(bot.user.id) && room.members.count == 3)

        let chatter = try await world.send(room, world.ana, "hello everyone")
        await bot.handled(1)
        #expect(try await world.store.messages(in: room.id, before: nil, limit: 10).messages == [chatter], "not named: the bot stays quiet")
        let asked = try await world.send(room, world.ben, "@parlor hello, are you there?")
        await bot.handled(2)
        let messages = try await world.store.messages(in: room.id, before: nil, limit: 10).messages
        #expect(messages.count == 3 && messages.last?.senderID == bot.user.id && messages.last?.replyTo == asked.id)
        #expect(bot.failures == 0)
    }

    @Test func whatTheRouterRefusesTheBotIsLoggedAndCountedNotDropped() async throws {
        let world = try await ChatWorld()
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        let chat = try await world.chat(world.ana, world.ben)
        // A message in a chat the bot is not in (no such chat at all): it stays out, and nothing failed.
        let ghost = Message(id: MessageID(999_999), chatID: ChatID(424_242), senderID: world.ana.id, body: "hello?", createdAt: world.clock.now)
        bot.observe(.message(.sent(ghost, token: "t")), router: world.events)
        await bot.settled()
        #expect(bot.failures == 0, "no such chat: the bot is in no chat of that id, nothing failed")
        // A welcome for someone the router cannot make a chat with (no such handle) fails visibly.
        let nobody = User(id: UserID(777_777), handle: "nobody", displayName: "Nobody")
        bot.observe(.user(.signedUp(nobody)), router: world.events)
        await bot.settled()
        #expect(bot.failures == 1)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.isEmpty)
    }

    @Test func aDeactivatedParlorBotStaysQuietAndStartsNoMore() async throws {
        let world = try await ChatWorld()
        let administration = try #require(world.store as? any AdministrationStore)
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let botWork = Task { await bot.run() }
        defer { botWork.cancel() }
        #expect(try await administration.bots().map(\.user.id) == [bot.user.id], "a bot like the ones administrators make")
        let chat = try await world.chat(world.ana, bot.user)

        _ = try await administration.deactivate(bot.user.id, at: world.clock.now)
        _ = try await world.send(chat, world.ana, "hello?")
        guard case .signedUp(let dmitri) = await world.router.send(.signingUp(NewUser(handle: "dmitri", displayName: "Dmitri Volkov"))) else {
            Issue.record("sign-up failed"); return
        }
        await bot.settled()
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.count == 1, "no answer")
        #expect(try await world.store.chatList(for: dmitri.id).filter { $0.contact?.id == bot.user.id }.isEmpty, "no welcome")
        #expect(bot.failures == 0, "staying quiet is not a failure")
        await #expect(throws: ParlorBot.Deactivated.self) {
            _ = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock)
        }

        // Reactivated: it answers again.
        _ = try await administration.reactivate(bot.user.id, at: world.clock.now)
        let asked = try await world.send(chat, world.ana, "hello again")
        await bot.settled()
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.last?.replyTo == asked.id)
    }
}
