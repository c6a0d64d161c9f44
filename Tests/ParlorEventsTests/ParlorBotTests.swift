import Foundation
import ParlorBots
import ParlorDomain
import ParlorEvents
import Testing

/// Parlor Bot talks through the same events as a person.
@Suite struct ParlorBotTests {
    /// Polls `condition` every 10 ms for at most 5 s.
    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test(arguments: Backend.allCases)
    func theBotGreetsANewcomerReadsTheirMessageAndAnswers(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        #expect(bot.user.handle == "parlor" && bot.user.isBot)

        guard case .signedUp(let dmitri) = await world.router.send(.signingUp(NewUser(handle: "dmitri", displayName: "Dmitri Volkov"))) else {
            Issue.record("sign-up failed"); return
        }
        #expect(try await eventually { try await world.store.chatList(for: dmitri.id).first?.lastMessage?.senderID == bot.user.id })
        let chat = try #require(try await world.store.chatList(for: dmitri.id).first)
        #expect(chat.contact.displayName == "Parlor Bot")
        #expect(chat.lastMessage?.body.hasPrefix("Welcome to Parlor, Dmitri Volkov!") == true)

        let stored = try await world.store.chat(chat.chatID)
        let botChat = try #require(stored)
        let (page, _) = try await world.page(dmitri, open: botChat)
        page.clear()
        let hello = try await world.send(botChat, dmitri, "hello bot")
        #expect(try await eventually { try await world.store.chatList(for: dmitri.id).first?.lastMessage?.replyTo == hello.id })
        let answer = try #require(try await world.store.chatList(for: dmitri.id).first?.lastMessage)
        #expect(answer.senderID == bot.user.id && answer.body == "Hello! Nice to hear from you.")
        #expect(try await world.store.membership(chat.chatID, bot.user.id)?.lastRead == hello.id)
        #expect(try await eventually { page.fragments.compactMap(\.messageCell).contains { $0.domID == "message-\(answer.id)" } })
        #expect(page.fragments.compactMap(\.messageCell).contains { $0.domID == "message-\(hello.id)" && $0.delivery?.label == "Read" })
    }

    @Test func theBotStaysOutOfOtherPeoplesChatsAndIsStartedOnce() async throws {
        let world = try await ChatWorld()
        let bot = try await ParlorBot.start(router: world.events, store: world.store, clock: world.clock, readDelay: .zero, replyDelay: .zero)
        let again = try await ParlorBot.start(router: EventRouter(store: world.store, bus: InProcessEventBus(), clock: world.clock), store: world.store, clock: world.clock)
        #expect(again.user == bot.user)
        let chat = try await world.chat(world.ana, world.ben)
        let message = try await world.send(chat, world.ana, "hello Ben")
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages == [message])
    }
}
