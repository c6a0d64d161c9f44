import ByteOutput
import Foundation
import ParlorDomain
import ParlorEvents
import ParlorLive
import Testing

/// Who hears what, and what it costs.
@Suite struct ListenerTests {
    @Test func aPageCannotOpenAChatItsViewerIsNotIn() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        await #expect(throws: Refusal.notFound) { try await world.page(world.chloe, open: chat) }
        await #expect(throws: Refusal.notFound) {
            try await world.handler.register(RecordingListener(), for: PageSubscription(viewer: UserID(999)))
        }
        #expect(world.handler.hasNoListeners)
    }

    /// A conversation opened at a message found far back keeps its messages when it connects, and hears of edits
    /// and new messages like any page of the chat (its script counts new ones below instead of appending them).
    @Test func aPageShowingMessagesFoundIsNotSentTheNewestButHearsTheChat() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let old = try await world.send(chat, world.ana, "An old plan")
        let page = RecordingListener()
        let registration = try await world.handler.register(page, for: PageSubscription(viewer: world.ben.id, openChat: chat.id, showsWindow: true))
        #expect(page.steps.contains("replace chat-list") && !page.steps.contains { $0.hasPrefix("replace messages-") }, "\(page.steps)")
        page.clear()
        _ = await world.router.send(.editing(MessageEdit(messageID: old.id, editorID: world.ana.id, body: "A new plan", editedAt: world.clock.now)))
        _ = try await world.send(chat, world.ana, "Something new")
        #expect(page.steps.contains("replace message-\(old.id)") && page.steps.contains { $0.hasPrefix("append ") }, "\(page.steps)")
        #expect(PageSubscription(viewer: world.ben.id, showsWindow: true).showsWindow == false, "a window needs an open chat")
        registration.cancel()
    }

    @Test func aPageNeverReceivesAnotherPersonsChat() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let (chloePage, _) = try await world.page(world.chloe)
        chloePage.clear()
        let message = try await world.send(chat, world.ana, "Just between us")
        _ = await world.router.send(.userReads(ReadReport(chatID: chat.id, readerID: world.ben.id)))
        _ = await world.router.send(.editing(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "Still private", editedAt: world.clock.now)))
        #expect(chloePage.updates.isEmpty)
    }

    @Test func aThousandPagesOnOneChatShareOneRenderPerVariant() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        _ = try await world.send(chat, world.ana, "Warm-up")
        var pages: [(RecordingListener, ListenerRegistration)] = []
        for index in 0..<1_000 { pages.append(try await world.page(index % 2 == 0 ? world.ben : world.ana, open: chat)) }
        #expect(world.handler.listenerCount == 1_000)
        for (page, _) in pages { page.clear() }

        let before = world.handler.renderCount
        let message = try await world.send(chat, world.ben, "To everyone watching")
        let renders = world.handler.renderCount - before
        // Ben (sender): pending cell, stored cell, list item. Ana: cell, list item, badge. Not per page. (The
        // pending cell is not drawn when the stored message is applied in the same batch as "Sending".)
        #expect(renders == 6 || renders == 5, "rendered \(renders) fragments for 1,000 pages")

        let benPages = pages.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.0)
        let anaPages = pages.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.0)
        let benStorage = benPages[0].updates.last!.html.finishedStorage
        for page in benPages {
            #expect(page.steps == benPages[0].steps)
            #expect(page.updates.last!.html.finishedStorage === benStorage)
        }
        for page in anaPages { #expect(page.fragments == anaPages[0].fragments) }
        #expect(anaPages[0].fragments.compactMap(\.messageCell).first?.domID == "message-\(message.id)")

        for (_, registration) in pages { registration.cancel() }
        for (_, registration) in pages.prefix(10) { registration.cancel() }  // twice is harmless
        #expect(world.handler.listenerCount == 0)
        #expect(world.handler.hasNoListeners)
    }

    @Test func aClosedPageStopsReceiving() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let (page, registration) = try await world.page(world.ben, open: chat)
        registration.cancel()
        page.clear()
        _ = try await world.send(chat, world.ana, "Anyone?")
        #expect(page.updates.isEmpty)
        #expect(world.handler.hasNoListeners)
    }
}
