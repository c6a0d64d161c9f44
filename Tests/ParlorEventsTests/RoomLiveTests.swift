import Foundation
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorViews
import Testing

/// Rooms on the live pages: a new room appears in each member's list, a message reaches every member's open
/// page once, drawn once per viewer, and whoever signs up later is in the open room from then on.
@Suite struct RoomLiveTests {
    @Test(arguments: Backend.allCases)
    func aNewRoomAppearsForItsMembersAndItsMessagesReachEachOfThem(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let (anaList, _) = try await world.page(world.ana)
        let (chloeList, _) = try await world.page(world.chloe)
        anaList.clear()
        chloeList.clear()

        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ben.id, kind: .closed, name: "Launch", topic: "Friday", memberHandles: ["@ana"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        let item = try #require(anaList.fragments.compactMap(\.chatListItem).first)
        #expect(item.title == "Launch" && item.subtitle == "2 members" && item.domID == "chat-item-\(room.id)", "Ana was added: it is in her list at once")
        #expect(chloeList.fragments.isEmpty, "Chloé was not")

        let (anaRoom, _) = try await world.page(world.ana, open: room)
        let (anaSecondTab, _) = try await world.page(world.ana, open: room)
        let (benRoom, _) = try await world.page(world.ben, open: room)
        for page in [anaRoom, anaSecondTab, benRoom, anaList] { page.clear() }
        let rendered = world.handler.renderCount
        let message = try await world.send(room, world.ben, "Build is green")

        for page in [anaRoom, anaSecondTab] {
            let cells = Self.cells(page).filter { $0.domID == "message-\(message.id)" }
            #expect(cells.count == 1 && cells.first?.authorLabel == "Ben Okafor" && cells.first?.isOwn == false, "once, with who wrote it")
        }
        #expect(Self.cells(benRoom).first { $0.domID == "message-\(message.id)" }?.isOwn == true)
        let row = try #require(anaList.fragments.compactMap(\.chatListItem).last)
        #expect(row.lastMessagePreview == "Ben Okafor: Build is green" && row.unreadBadge == nil && row.hasDot, "a room: a dot, no count")
        #expect(chloeList.fragments.isEmpty, "nothing reaches someone outside the room")
        // Ana's two pages share one drawing of the cell; Ben's is his own: never one per page.
        #expect(world.handler.renderCount - rendered < 12)
    }

    @Test(arguments: Backend.allCases)
    func aRoomFannedOutInPartsSideBySideGivesEveryPageEachMessageOnceInOrder(_ backend: Backend) async throws {
        // Parts of one member: the three of them are fanned out to in two parts, side by side.
        let world = try await ChatWorld(backend, fanOutPartSize: 1)
        let created = await world.router.send(.creatingRoom(RoomRequest(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: "", memberHandles: ["@ben", "@chloe"]
        )))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        var rooms: [UserID: RecordingListener] = [:]
        var lists: [UserID: RecordingListener] = [:]
        for person in [world.ana, world.ben, world.chloe] {
            rooms[person.id] = try await world.page(person, open: room).0
            lists[person.id] = try await world.page(person).0
        }
        for page in Array(rooms.values) + Array(lists.values) { page.clear() }
        var sent: [Message] = []
        for (index, sender) in [world.ana, world.ben, world.chloe, world.ben, world.ana, world.chloe].enumerated() {
            sent.append(try await world.send(room, sender, "Step \(index)"))
        }
        for person in [world.ana, world.ben, world.chloe] {
            // (Their own messages show "Sending" first, as always.)
            let ids = Self.cells(rooms[person.id]!).map(\.domID).filter { $0.hasPrefix("message-") }
            #expect(ids == sent.map { "message-\($0.id)" }, "\(person.handle): each once, in order")
            let row = try #require(lists[person.id]!.fragments.compactMap(\.chatListItem).last)
            #expect(row.lastMessagePreview.hasSuffix("Step 5"), "\(person.handle)'s list has the newest")
        }
    }

    /// The whole lists a page was sent.
    static func lists(_ page: RecordingListener) -> [ChatListViewModel] {
        page.fragments.compactMap { if case .chatList(let list) = $0 { list } else { nil } }
    }

    /// The cells a page was sent: alone, or in the day they start.
    static func cells(_ page: RecordingListener) -> [MessageCellViewModel] {
        page.fragments.flatMap { fragment -> [MessageCellViewModel] in
            switch fragment {
            case .messageCell(let cell): [cell]
            case .daySection(let day): day.messages
            default: []
            }
        }
    }

    @Test func whoeverSignsUpLaterIsInTheOpenRoomAndGetsItsMessagesLive() async throws {
        let world = try await ChatWorld()
        let general = try #require(try await world.store.chatList(for: world.ana.id).first { $0.heading.kind == .open })
        #expect(general.heading.name == "General" && general.heading.memberCount == 3, "made when the first person signed up")
        let room = try #require(try await world.store.chat(general.chatID))
        // The live pages know the room (and its members) before Dmitri signs up.
        _ = try await world.send(room, world.ana, "Morning")

        let dmitri = try await ChatWorld.signUp(world.events, "dmitri", "Dmitri Volkov", "Europe/Paris")
        await world.handler.settled()
        let (page, _) = try await world.page(dmitri, open: try await world.store.chat(general.chatID))
        page.clear()
        let (benGeneral, _) = try await world.page(world.ben, open: room)
        let eve = try await ChatWorld.signUp(world.events, "eve", "Eve Adams", "Europe/Paris")
        await world.handler.settled()
        #expect(benGeneral.fragments.compactMap(\.conversationHeader).last?.subtitle == "5 members", "the count moves when someone joins")
        #expect(eve.handle == "eve")
        let hello = try await world.send(room, world.ben, "Welcome Dmitri")
        #expect(Self.cells(page).contains { $0.domID == "message-\(hello.id)" })
        #expect(try await world.store.chatSummary(general.chatID, for: dmitri.id)?.unreadCount == 1, "Ben's welcome; Ana's morning came before him")
    }

    @Test(arguments: Backend.allCases)
    func whoeverIsAddedSeesTheRoomLiveAndWhoeverIsTakenOutGetsNothingMore(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Launch", memberHandles: ["ben"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        _ = try await world.send(room, world.ben, "Before Chloé")
        let (chloeList, _) = try await world.page(world.chloe)
        let (benRoom, _) = try await world.page(world.ben, open: room)
        let (benList, _) = try await world.page(world.ben)
        for page in [chloeList, benRoom, benList] { page.clear() }

        let added = await world.router.send(.changingMembers(MemberChange(chatID: room.id, by: world.ana.id, adding: ["@chloe"])))
        guard case .membersChanged(let change) = added else { Issue.record("not added: \(added)"); return }
        #expect(change.added == [world.chloe.id])
        let item = try #require(chloeList.fragments.compactMap(\.chatListItem).first { $0.domID == "chat-item-\(room.id)" })
        #expect(item.title == "Launch" && item.unreadBadge == nil && item.lastMessagePreview == "Ana Lima added someone", "in her list at once, nothing unread")
        #expect(benRoom.fragments.compactMap(\.conversationHeader).last?.subtitle == "3 members", "the count moves on every open page")
        #expect(Self.cells(benRoom).last?.noticeText == "Ana Lima added Chloé Martin")
        let (chloeRoom, _) = try await world.page(world.chloe, open: room)
        #expect(chloeRoom.fragments.compactMap(\.messages).first?.days.flatMap(\.messages).map(\.noticeText) == [nil, "Ana Lima added you"])

        for page in [benRoom, benList, chloeRoom] { page.clear() }
        let removed = await world.router.send(.changingMembers(MemberChange(chatID: room.id, by: world.ana.id, removing: world.ben.id)))
        guard case .membersChanged = removed else { Issue.record("not removed: \(removed)"); return }
        #expect(benRoom.steps.contains("leave /chats"), "Ben's open room goes back to the list")
        #expect(benList.steps.contains("remove chat-item-\(room.id)"))
        #expect(Self.cells(chloeRoom).last?.noticeText == "Ana Lima removed Ben Okafor")
        for page in [benRoom, benList, chloeRoom] { page.clear() }
        let after = try await world.send(room, world.ana, "Ben is gone")
        #expect(!benRoom.steps.contains { $0.contains("messages") || $0.contains("day-") } && benList.fragments.isEmpty, "nothing reaches him after it")
        #expect(Self.cells(chloeRoom).contains { $0.domID == "message-\(after.id)" })
        await #expect(throws: Refusal.notFound) { try await world.page(world.ben, open: room) }
    }

    @Test func aRemovedMembersFeedsPageGetsNothingAfterItIsToldToLeave() async throws {
        let world = try await ChatWorld()
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "News", memberHandles: ["ben"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        let benFeeds = RecordingListener()
        _ = try await world.handler.register(benFeeds, for: PageSubscription(viewer: world.ben.id, feedsOf: room.id))
        benFeeds.clear()
        _ = await world.router.send(.changingMembers(MemberChange(chatID: room.id, by: world.ana.id, removing: world.ben.id)))
        #expect(benFeeds.steps == ["leave /chats"])
        let followed = await world.router.send(.subscribing(NewSubscription(
            chatID: room.id, subscriberID: world.ana.id, url: "https://example.org/feed.xml", createdAt: world.clock.now
        )))
        guard case .subscribed = followed else { Issue.record("not followed: \(followed)"); return }
        #expect(benFeeds.steps == ["leave /chats"], "the room's feeds are no longer his to see")
    }

    @Test func followingMoreOrLessChangesTheListAndBadgeLive() async throws {
        let world = try await ChatWorld()
        let general = try #require(try await world.store.chatList(for: world.ana.id).first { $0.heading.kind == .open })
        let room = try #require(try await world.store.chat(general.chatID))
        let (list, _) = try await world.page(world.ana)
        list.clear()
        _ = try await world.send(room, world.ben, "Morning")
        #expect(list.fragments.compactMap(\.badge).isEmpty, "followed for mentions: no count")
        #expect(list.fragments.compactMap(\.chatListItem).last?.hasDot == true)
        let toasts = list.fragments.compactMap(\.toast).count
        #expect(toasts == 0, "no toast for a message that names nobody")

        list.clear()
        _ = await world.router.send(.changingInvolvement(chat: room.id, member: world.ana.id, .everything))
        #expect(list.fragments.compactMap(\.badge).last?.count == "1", "now every message counts")
        list.clear()
        _ = await world.router.send(.changingInvolvement(chat: room.id, member: world.ana.id, .hidden))
        let redrawn = try #require(Self.lists(list).last)
        #expect(!redrawn.items.contains { $0.domID == "chat-item-\(room.id)" }, "hidden: out of the list")
        list.clear()
        _ = try await world.send(room, world.ben, "@ana are you there?")
        #expect(list.fragments.compactMap(\.chatListItem).last?.domID == "chat-item-\(room.id)", "named: back, at the top")
        #expect(list.fragments.compactMap(\.toast).count == 1 && list.fragments.compactMap(\.badge).last?.count == "1")
    }

    @Test(arguments: Backend.allCases)
    func seenByGrowsLiveAsMembersRead(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Launch", memberHandles: ["ben", "chloe"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        let (anaRoom, _) = try await world.page(world.ana, open: room)
        let message = try await world.send(room, world.ana, "Shipping at 4")
        #expect(Self.cells(anaRoom).last { $0.domID == "message-\(message.id)" }?.delivery?.label == "Sent")
        _ = await world.router.send(.userReads(ReadReport(chatID: room.id, readerID: world.ben.id)))
        #expect(Self.cells(anaRoom).last { $0.domID == "message-\(message.id)" }?.delivery?.label == "Seen by Ben Okafor")
        _ = await world.router.send(.userReads(ReadReport(chatID: room.id, readerID: world.chloe.id)))
        let seen = try #require(Self.cells(anaRoom).last { $0.domID == "message-\(message.id)" }?.delivery)
        #expect(seen.label == "Seen by Ben Okafor and Chloé Martin" && seen.detailsURL == "/rooms/\(room.id)/messages/\(message.id)/seen")
        // A page opened now says the same.
        let (again, _) = try await world.page(world.ana, open: room)
        let cell = again.fragments.compactMap(\.messages).first?.days.flatMap(\.messages).first { $0.domID == "message-\(message.id)" }
        #expect(cell?.delivery?.label == "Seen by Ben Okafor and Chloé Martin")
    }

    /// Removal races sends: whatever the order they are stored in, once the removed member's page is told to
    /// leave, no message of the room reaches it.
    @Test(arguments: Backend.allCases)
    func nothingReachesARemovedMemberAfterTheRemovalWhateverWasInFlight(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        for round in 0..<10 {
            let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Race \(round)", memberHandles: ["ben"])))
            guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
            let (benRoom, _) = try await world.page(world.ben, open: room)
            benRoom.clear()
            async let sends: Void = {
                for index in 0..<5 { _ = await world.events.send(.message(.sending(world.outgoing(room, world.ana, "n\(index)", token: "r\(round)-\(index)")))) }
            }()
            async let removal = world.events.send(.chat(.changingMembers(MemberChange(chatID: room.id, by: world.ana.id, removing: world.ben.id))))
            _ = await (sends, removal)
            await world.handler.settled()
            let steps = benRoom.steps
            let left = try #require(steps.firstIndex(of: "leave /chats"), "round \(round): the page was told to leave")
            let after = steps[(left + 1)...].filter { $0.hasPrefix("append") }
            #expect(after.isEmpty, "round \(round): \(after) reached the page after the removal")
        }
    }

    /// Members share a cell's rendering only where they see the same thing: each one named sees their own name
    /// highlighted, the sender their own message, the others the same bytes.
    @Test func sharedCellsStillSayWhoIsNamedAndWhoWrote() async throws {
        let world = try await ChatWorld()
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Ops", memberHandles: ["ben", "chloe"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        var pages: [UserID: RecordingListener] = [:]
        for person in [world.ana, world.ben, world.chloe] { pages[person.id] = try await world.page(person, open: room).0 }
        let message = try await world.send(room, world.chloe, "@ana and @ben: the release?")
        func cell(_ person: User) -> MessageCellViewModel? { Self.cells(pages[person.id]!).last { $0.domID == "message-\(message.id)" } }
        let you = { (cell: MessageCellViewModel?) in cell?.body.flatMap(\.parts).filter(\.isYou).map(\.text) ?? [] }
        #expect(you(cell(world.ana)) == ["@ana"] && cell(world.ana)?.mentionsYou == true)
        #expect(you(cell(world.ben)) == ["@ben"] && cell(world.ben)?.mentionsYou == true)
        #expect(cell(world.chloe)?.isOwn == true && cell(world.chloe)?.authorLabel == "You")
    }
}
