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
