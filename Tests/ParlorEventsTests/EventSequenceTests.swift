import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorEvents
import ParlorViews
import Synchronization
import Testing
@testable import ParlorLive

/// Given these events, these pages received exactly these view models, in this order.
@Suite struct EventSequenceTests {
    @Test(arguments: Backend.allCases)
    func aPageFirstReceivesItsChatListBadgeAndOpenConversation(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let chat = try await world.chat(world.ana, world.ben)
        let hello = try await world.send(chat, world.ben, "Hello Ana")

        let (page, _) = try await world.page(world.ana, open: chat)
        let context = world.context(world.ana)
        // The chat with Ben, and the room everyone joined when the first person signed up.
        let summaries = try await world.store.chatList(for: world.ana.id)
        #expect(summaries.map(\.chatID).first == chat.id && summaries.dropFirst().map(\.heading.name) == ["General"])
        let expectedList = ChatListBuilder(context: context).loaded(summaries, current: chat.id)
        let expectedBadge = PageBuilder(context: context).unreadBadge(1)
        let expectedMessages = ConversationBuilder(context: context).conversation(
            ConversationSnapshot(chatID: chat.id, contact: world.ben, messages: [hello]), draft: ComposerDraft(token: "")
        ).messages
        #expect(page.fragments == [.chatList(expectedList), .badge(expectedBadge), .messages(expectedMessages)])
        #expect(page.steps == ["replace chat-list", "badge unread-badge", "replace messages-\(chat.id)"])
        #expect(page.updates[0].html.string.hasPrefix(#"<parlor-stream action="replace" target="chat-list"><template><section class="chat-list""#))
    }

    @Test(arguments: Backend.allCases)
    func aMessageShowsSendingThenSentToItsSenderAndArrivesWithABadgeAndToastForTheOther(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let chat = try await world.chat(world.ana, world.ben)
        let (anaPage, _) = try await world.page(world.ana, open: chat)
        let (benPage, _) = try await world.page(world.ben)
        anaPage.clear()
        benPage.clear()

        // The router's two events, one at a time: "Sending" alone in its lane is drawn at once (when its message
        // is stored by the lane's next batch, it is not drawn at all: ``aSendingWhoseMessageIsStoredByTheNextBatchIsNeverDrawn``).
        let outgoing = world.outgoing(chat, world.ana, "Hello Ben!", token: "tok-1")
        world.handler.route(PublishedEvent(.message(.sending(outgoing))))
        await world.handler.settled()
        #expect(anaPage.steps == ["append messages-\(chat.id)"])
        let message = try await world.store.send(outgoing)
        world.handler.route(PublishedEvent(.message(.sent(message, token: "tok-1"))))
        await world.handler.settled()

        let anaCells = MessageCellBuilder(context: world.context(world.ana))
        let pending = anaCells.cell(PendingMessage(token: "tok-1", chatID: chat.id, body: "Hello Ben!", createdAt: world.clock.now))
        let sent = anaCells.cell(message, sender: world.ana)
        let day = ConversationBuilder(context: world.context(world.ana)).daySection(chat.id, date: world.clock.now, cells: [pending])
        let sentDay = ConversationBuilder(context: world.context(world.ana)).daySection(chat.id, date: world.clock.now, cells: [sent])
        let anaItem = ChatListBuilder(context: world.context(world.ana)).item(try #require(try await world.store.chatSummary(chat.id, for: world.ana.id)), isCurrent: true)
        #expect(anaPage.steps == [
            "append messages-\(chat.id)", "remove pending-tok-1", "append messages-\(chat.id)",
            "remove chat-item-\(chat.id)", "prepend chat-list-direct",
        ])
        #expect(anaPage.fragments == [.daySection(day), .daySection(sentDay), .chatListItem(anaItem)])
        #expect(day.messages[0].delivery?.label == "Sending")
        #expect(sentDay.messages[0].delivery?.label == "Sent")
        #expect(day.label == "Today")

        let benContext = world.context(world.ben)
        let benItem = ChatListBuilder(context: benContext).item(try #require(try await world.store.chatSummary(chat.id, for: world.ben.id)), isCurrent: false)
        #expect(benPage.steps == ["remove chat-item-\(chat.id)", "prepend chat-list-direct", "badge unread-badge", "toast toast-\(message.id)"])
        #expect(benPage.fragments == [
            .chatListItem(benItem), .badge(PageBuilder(context: benContext).unreadBadge(1)),
            .toast(PageBuilder(context: benContext).toast(message, from: world.ana)),
        ])
        #expect(benItem.unreadBadge == "1" && benItem.lastMessagePreview == "Hello Ben!")

        // Through the router, what was typed is stored without its surrounding blanks.
        let result = await world.router.send(.sending(world.outgoing(chat, world.ana, "  Hello again!\n", token: "tok-2")))
        guard case .sent(let again, "tok-2") = result else { Issue.record("not sent: \(result)"); return }
        #expect(again.body == "Hello again!")
    }

    /// A page that records what it receives and holds the lane that delivers a message's cell until told: the test
    /// then knows what waits for the lane's next batch.
    final class HoldingListener: Listener {
        private let received = Mutex<[ScreenUpdate]>([])
        /// Cells ("message-N") whose delivery holds the lane, each once.
        private let holdAt = Mutex<Set<String>>([])
        private let holding = Atomic(false)
        private let released = DispatchSemaphore(value: 0)

        func receive(_ update: ScreenUpdate) { receive([update]) }
        func receive(_ updates: [ScreenUpdate]) {
            received.withLock { $0 += updates }
            let holds = holdAt.withLock { cells in
                let hit = cells.first { cell in updates.contains { $0.html.string.contains("id=\"\(cell)\"") } }
                if let hit { cells.remove(hit) }
                return hit != nil
            }
            guard holds else { return }
            holding.store(true, ordering: .releasing)
            // Bounded: a test that never releases fails on what it waits for instead of hanging the suite.
            _ = released.wait(timeout: .now() + 20)
        }

        func hold(at message: MessageID) { _ = holdAt.withLock { $0.insert("message-\(message)") } }
        /// Whether the lane came to be held (waited for, bounded); it stays held until ``release()``.
        func held() async -> Bool { await eventually { holding.load(ordering: .acquiring) } }
        func release() {
            holding.store(false, ordering: .releasing)
            released.signal()
        }
        var updates: [ScreenUpdate] { received.withLock { $0 } }
        /// The cells drawn, in order, whether a day's list came with them or not.
        var domIDs: [String] {
            updates.flatMap { update in update.fragment?.daySection?.messages.map(\.domID) ?? update.fragment?.messageCell.map { [$0.domID] } ?? [] }
        }
    }

    /// "Sending" that waits in a busy lane behind other work, and whose message is stored before the lane takes its next
    /// batch, is never drawn only to be replaced at once: the stored cell comes alone.
    @Test func aSendingWhoseMessageIsStoredByTheNextBatchIsNeverDrawn() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let anaPage = HoldingListener()
        let registration = try await world.handler.register(anaPage, for: PageSubscription(viewer: world.ana.id, openChat: chat.id))
        await world.handler.settled()

        // Ben's first message holds the lane while Ana's "Sending" and Ben's second wait: they are the next batch,
        // whose second message holds the lane again while Ana's is stored.
        let first = try await world.store.send(world.outgoing(chat, world.ben, "One", token: "ben-1"))
        anaPage.hold(at: first.id)
        world.handler.route(PublishedEvent(.message(.sent(first, token: "ben-1"))))
        #expect(await anaPage.held(), "the lane delivers Ben's first message")
        let mine = world.outgoing(chat, world.ana, "Mine", token: "ana-1")
        world.handler.route(PublishedEvent(.message(.sending(mine))))
        let second = try await world.store.send(world.outgoing(chat, world.ben, "Two", token: "ben-2"))
        anaPage.hold(at: second.id)
        world.handler.route(PublishedEvent(.message(.sent(second, token: "ben-2"))))
        anaPage.release()
        #expect(await anaPage.held(), "the lane delivers Ben's second message")
        let stored = try await world.store.send(mine)
        world.handler.route(PublishedEvent(.message(.sent(stored, token: "ana-1"))))
        anaPage.release()
        await world.handler.settled()

        #expect(anaPage.domIDs.contains("message-\(stored.id)") && anaPage.domIDs.contains("message-\(second.id)"))
        #expect(!anaPage.domIDs.contains("pending-ana-1"), "\(anaPage.domIDs)")
        _ = registration
    }

    @Test(arguments: [false, true])
    func aSecondMessageOfTheSameDayGoesIntoThatDaysListAndNoToastWhereTheChatIsOpen(inOrder: Bool) async throws {
        let world = try await ChatWorld(inOrder: inOrder)
        let chat = try await world.chat(world.ana, world.ben)
        let first = try await world.send(chat, world.ana, "First")
        let (benPage, _) = try await world.page(world.ben, open: chat)
        benPage.clear()
        world.clock.advance(by: 60)
        let second = try await world.send(chat, world.ana, "Second")
        let day = ConversationBuilder(context: world.context(world.ben)).daySection(chat.id, date: world.clock.now, cells: [])
        #expect(benPage.steps == ["append \(day.listDomID)", "remove chat-item-\(chat.id)", "prepend chat-list-direct", "badge unread-badge"])
        let cell = try #require(benPage.fragments.first?.messageCell)
        #expect(cell == MessageCellBuilder(context: world.context(world.ben)).cell(second, sender: world.ana, after: first))
        #expect(cell.continuesGroup, "a minute after Ana's first message, her second joins its group")
        #expect(benPage.fragments.compactMap(\.chatListItem).first?.isCurrent == true)
    }

    @Test(arguments: [false, true])
    func aMessageOnTheNextDayStartsItsOwnDayAfterAnEditedOne(inOrder: Bool) async throws {
        let world = try await ChatWorld(inOrder: inOrder)
        let chat = try await world.chat(world.ana, world.ben)
        let first = try await world.send(chat, world.ana, "First")
        let (benPage, _) = try await world.page(world.ben, open: chat)
        let edited = await world.router.send(.editing(MessageEdit(messageID: first.id, editorID: world.ana.id, body: "First, edited", editedAt: world.clock.now)))
        guard case .edited = edited else { throw Refusal.unavailable }
        benPage.clear()
        world.clock.advance(by: 24 * 3600)
        let second = try await world.send(chat, world.ana, "Next day")
        #expect(benPage.steps.first == "append \(ConversationBuilder.messagesDomID(chat.id))", "a day of its own: \(benPage.steps)")
        let cell = try #require(benPage.fragments.compactMap(\.daySection).first?.messages.first)
        #expect(cell.domID == "message-\(second.id)")
        #expect(!cell.continuesGroup)
    }

    @Test func aRenameReachesTheHeaderAndCellsOfTheContactsOpenConversationOnly() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        _ = try await world.send(chat, world.ana, "Hello")
        let (benOpen, _) = try await world.page(world.ben, open: chat)
        let (benList, _) = try await world.page(world.ben)
        benOpen.clear()
        benList.clear()
        await world.router.send(.updatingProfile(ProfileChange(
            userID: world.ana.id, displayName: "Ana Sousa", timeZoneIdentifier: "Europe/Paris", localeIdentifier: "en_US"
        )))
        let header = try #require(benOpen.fragments.compactMap(\.conversationHeader).first)
        #expect(header.title == "Ana Sousa" && header.domID == ConversationBuilder.headerDomID(chat.id))
        let cells = try #require(benOpen.fragments.compactMap(\.messages).first).days.flatMap(\.messages)
        #expect(cells.map(\.authorLabel) == ["Ana Sousa"])
        #expect(benList.steps == ["replace chat-list"], "a page without the chat open gets the list alone")
        // Redrawn up to the newest message: the next one is appended once.
        benOpen.clear()
        _ = try await world.send(chat, world.ana, "Again")
        #expect(benOpen.fragments.compactMap(\.messageCell).map(\.body.first?.text) == ["Again"])
    }

    @Test func aDeletionReachesEveryOpenPageAndTheListsOfBoth() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let message = try await world.send(chat, world.ana, "Oops, wrong chat")
        let (benOpen, _) = try await world.page(world.ben, open: chat)
        let (anaList, _) = try await world.page(world.ana)
        benOpen.clear()
        anaList.clear()
        let refused = await world.router.send(.deleting(MessageDeletion(messageID: message.id, requesterID: world.ben.id, deletedAt: world.clock.now)))
        #expect(refused == .failedDeleting(MessageDeletion(messageID: message.id, requesterID: world.ben.id, deletedAt: world.clock.now), reason: .notYourMessage))
        #expect(benOpen.updates.isEmpty, "a refusal changes no page")
        await world.router.send(.deleting(MessageDeletion(messageID: message.id, requesterID: world.ana.id, deletedAt: world.clock.now)))
        let cell = try #require(benOpen.fragments.compactMap(\.messageCell).first)
        #expect(cell.domID == "message-\(message.id)" && cell.isDeleted && cell.body.isEmpty && cell.replyURL == nil)
        #expect(benOpen.steps.first == "replace message-\(message.id)")
        #expect(anaList.fragments.compactMap(\.chatListItem).map(\.lastMessagePreview) == ["Message deleted"])
        // Ben had not read it: it no longer counts, in the store and on his badge.
        #expect(try await world.store.unreadTotal(for: world.ben.id) == 0)
        let badges = benOpen.fragments.compactMap(\.badge)
        #expect(!badges.isEmpty && badges.last?.count == nil, "\(badges)")
        #expect(try await world.store.message(message.id)?.body == "", "the text is gone from the store")
        // A second click, even within the same instant, changes nothing and tells nobody.
        benOpen.clear()
        await world.router.send(.deleting(MessageDeletion(messageID: message.id, requesterID: world.ana.id, deletedAt: world.clock.now)))
        #expect(benOpen.updates.isEmpty)
    }

    @Test func readingShowsReadToTheSenderAndClearsTheReadersCounts() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let first = try await world.send(chat, world.ana, "One")
        let second = try await world.send(chat, world.ana, "Two")
        let (anaPage, _) = try await world.page(world.ana, open: chat)
        let (benPage, _) = try await world.page(world.ben)
        anaPage.clear()
        benPage.clear()

        let result = await world.router.send(.userReads(ReadReport(chatID: chat.id, readerID: world.ben.id)))
        #expect(result == .userRead(chat: chat.id, reader: world.ben.id, previous: nil, upTo: second.id))
        #expect(anaPage.steps == ["replace message-\(first.id)", "replace message-\(second.id)"])
        #expect(anaPage.fragments.compactMap(\.messageCell).map { $0.delivery?.label } == ["Read", "Read"])
        #expect(benPage.fragments.compactMap(\.chatListItem).map(\.unreadBadge) == [nil])
        #expect(benPage.fragments.compactMap(\.badge) == [PageBuilder(context: world.context(world.ben)).unreadBadge(0)])

        // Reading again moves nothing and tells nobody.
        anaPage.clear()
        #expect(await world.router.send(.userReads(ReadReport(chatID: chat.id, readerID: world.ben.id))) == .userReads(ReadReport(chatID: chat.id, readerID: world.ben.id)))
        #expect(anaPage.updates.isEmpty)
    }

    @Test func anEditReachesEveryoneViewingWithTheEditedMark() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let message = try await world.send(chat, world.ana, "Helo")
        let (anaPage, _) = try await world.page(world.ana, open: chat)
        let (benPage, _) = try await world.page(world.ben, open: chat)
        anaPage.clear()
        benPage.clear()
        world.clock.advance(by: 30)

        let result = await world.router.send(.editing(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "Hello", editedAt: world.clock.now)))
        guard case .edited(let edited) = result else { Issue.record("not edited: \(result)"); return }
        #expect(anaPage.fragments.first?.messageCell?.authorLabel == "You · Edited")
        #expect(benPage.fragments.first?.messageCell?.authorLabel == "Ana Lima · Edited")
        #expect(benPage.fragments.first?.messageCell == MessageCellBuilder(context: world.context(world.ben)).cell(edited, sender: world.ana))
        #expect(benPage.steps == ["replace message-\(message.id)", "replace chat-item-\(chat.id)"])

        benPage.clear()
        let refused = await world.router.send(.editing(MessageEdit(messageID: message.id, editorID: world.ben.id, body: "Mine now", editedAt: world.clock.now)))
        #expect(refused == .failedEditing(MessageEdit(messageID: message.id, editorID: world.ben.id, body: "Mine now", editedAt: world.clock.now), reason: .notYourMessage))
        #expect(benPage.updates.isEmpty)
        #expect(try await world.store.message(message.id)?.body == "Hello")
    }

    @Test func aRepliedMessageQuotesTheOneItAnswers() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let question = try await world.send(chat, world.ben, "Lunch at noon?")
        let (benPage, _) = try await world.page(world.ben, open: chat)
        benPage.clear()
        guard case .sent = await world.router.send(.sending(world.outgoing(chat, world.ana, "Yes", token: "r1", replyTo: question.id))) else {
            Issue.record("not sent"); return
        }
        let quote = try #require(benPage.fragments.compactMap(\.messageCell).first?.replyQuote)
        #expect(quote.author == "You" && quote.excerpt == "Lunch at noon?")
    }

    @Test func aNewChatAppearsAtTheTopOfBothLists() async throws {
        let world = try await ChatWorld()
        let (anaPage, _) = try await world.page(world.ana)
        let (chloePage, _) = try await world.page(world.chloe)
        anaPage.clear()
        chloePage.clear()
        let chat = try await world.chat(world.ana, world.chloe)
        #expect(anaPage.steps == ["prepend chat-list-direct"])
        #expect(anaPage.fragments.first?.chatListItem?.title == "Chloé Martin")
        #expect(chloePage.fragments.first?.chatListItem?.url == "/rooms/\(chat.id)")
    }
}
