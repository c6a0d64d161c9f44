import Foundation
import ParlorDomain
import Testing

/// What every ChatStore must do, run against each backend.
@Suite struct ChatStoreBehaviourTests {
    struct World {
        let store: any ChatStore
        let folder: TemporaryFolder
        let ana: User
        let ben: User
        let chloe: User

        init(_ kind: StoreKind) async throws {
            folder = try TemporaryFolder()
            store = try await kind.make(in: folder)
            ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana Lima", timeZoneIdentifier: "Europe/Paris", localeIdentifier: "fr_FR"), at: .at(0))
            ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben Okafor"), at: .at(0))
            chloe = try await store.createUser(NewUser(handle: "chloe", displayName: "Chloé Martin"), at: .at(0))
        }

        /// Ana's chat with Ben, and Chloé's first message in her chat with Ana: a message from elsewhere.
        func chatAndAMessageElsewhere() async throws -> (chat: Chat, elsewhere: Message) {
            let chat = try await store.createChat(between: ana.id, and: ben.id, at: .at(0))
            let other = try await store.createChat(between: ana.id, and: chloe.id, at: .at(0))
            return (chat, try await send(other.id, from: chloe, "Elsewhere", at: 0))
        }

        func send(_ chat: ChatID, from sender: User, _ body: String, at seconds: Double, token: String? = nil, replyTo: MessageID? = nil) async throws -> Message {
            try await store.send(OutgoingMessage(chatID: chat, senderID: sender.id, body: body, replyTo: replyTo, token: token ?? UUID().uuidString, createdAt: .at(seconds)))
        }
    }

    /// The chats screen in one read: what the single reads give, and whether opening the chat reads something.
    @Test(arguments: StoreKind.allCases)
    func theChatsScreenIsTheListAndTheOpenConversationWithItsQuotes(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let (chat, _) = try await world.chatAndAMessageElsewhere()
        let store = world.store
        let first = try await world.send(chat.id, from: world.ben, "First", at: 1)
        for index in 2..<8 { _ = try await world.send(chat.id, from: world.ben, "n\(index)", at: Double(index)) }
        _ = try await world.send(chat.id, from: world.ana, "Answering the first", at: 9, replyTo: first.id)

        // Three messages a page: the quoted first one is not on it, so it comes with the quotes.
        let screen = try await store.chatsScreen(for: world.ana.id, open: chat.id, before: nil, limit: 3)
        #expect(screen.summaries == (try await store.chatList(for: world.ana.id)))
        // The list alone (the chats screen, a live page without an open chat): the same rows, no conversation.
        let list = try await store.chatsScreen(for: world.ana.id, open: nil, before: nil, limit: 3)
        #expect(list.summaries == screen.summaries && list.summaries.first?.lastRead == nil && list.conversation == nil)
        let conversation = try #require(screen.conversation)
        #expect(conversation.messages == (try await store.messages(in: chat.id, before: nil, limit: 3)).messages)
        #expect(conversation.quoted == [first])
        #expect(conversation.contact == world.ben && conversation.hasOlder)
        #expect(screen.unreadTotal == (try await store.unreadTotal(for: world.ana.id)))
        #expect(screen.opensUnread, "Ben's messages are unread")

        _ = try await store.markRead(ReadReport(chatID: chat.id, readerID: world.ana.id))
        let read = try await store.chatsScreen(for: world.ana.id, open: chat.id, before: nil, limit: 3)
        #expect(!read.opensUnread, "nothing left to read")
        #expect(read.viewerLastRead == (try await store.membership(chat.id, world.ana.id))?.lastRead)
        #expect((try await store.chatsScreen(for: world.ben.id, open: chat.id, before: nil, limit: 50)).conversation?.contactLastRead == read.viewerLastRead)

        // A chat that is not Chloé's shows her list and no conversation; no chat open, no conversation.
        let stranger = try await store.chatsScreen(for: world.chloe.id, open: chat.id, before: nil, limit: 50)
        #expect(stranger.conversation == nil && !stranger.opensUnread && stranger.summaries.count == 1)
        #expect((try await store.chatsScreen(for: world.ana.id, open: nil, before: nil, limit: 50)).conversation == nil)
        #expect(try await store.conversation(chat.id, viewer: world.chloe.id, before: nil, limit: 50) == nil)
    }

    /// Every chat made so far is a direct one of two; its members follow it fully from when it was made.
    @Test(arguments: StoreKind.allCases)
    func aChatIsADirectRoomWhoseMembersFollowEverythingSinceItWasMade(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ben.id, and: world.ana.id, at: .at(42))
        #expect(chat.kind == .direct && chat.name == nil && chat.topic == nil)
        #expect(try await world.store.chat(chat.id) == chat)
        for person in [world.ana, world.ben] {
            let membership = try #require(try await world.store.membership(chat.id, person.id))
            #expect(membership.involvement == .everything && membership.joinedAt == .at(42) && membership.lastRead == nil)
        }
        #expect(try await world.store.membership(chat.id, world.chloe.id) == nil)
    }

    /// The message just below the page is read to tell whether there is older history, but it is not shown:
    /// quoted by the page, it comes with the quotes; what only it quotes does not.
    @Test(arguments: StoreKind.allCases)
    func theQuotesOfAPageAreWhatItsShownMessagesQuote(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let (chat, _) = try await world.chatAndAMessageElsewhere()
        let first = try await world.send(chat.id, from: world.ben, "First", at: 1)
        let belowPage = try await world.send(chat.id, from: world.ben, "Quoting the first", at: 2, replyTo: first.id)
        _ = try await world.send(chat.id, from: world.ana, "Plain", at: 3)
        _ = try await world.send(chat.id, from: world.ana, "Quoting the one below the page", at: 4, replyTo: belowPage.id)

        let screen = try await world.store.chatsScreen(for: world.ana.id, open: chat.id, before: nil, limit: 2)
        let conversation = try #require(screen.conversation)
        #expect(conversation.messages.map(\.body) == ["Plain", "Quoting the one below the page"] && conversation.hasOlder)
        #expect(conversation.quoted == [belowPage])
        #expect(conversation == (try await world.store.conversation(chat.id, viewer: world.ana.id, before: nil, limit: 2)))
        // An older page: the same rules from where it starts.
        let older = try #require((try await world.store.chatsScreen(for: world.ana.id, open: chat.id, before: conversation.messages[0].id, limit: 1)).conversation)
        #expect(older.messages == [belowPage] && older.quoted == [first] && older.hasOlder)
    }

    @Test(arguments: StoreKind.allCases)
    func aLiveSessionComesWithItsPersonUntilItExpires(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let accounts = try #require(world.store as? any AccountStore)
        let session = StoredSession(idHash: "h1", userID: world.ben.id, csrfToken: "t", createdAt: .at(0), expiresAt: .at(100))
        try await accounts.createSession(session)
        #expect(try await accounts.liveSession(idHash: "h1", now: .at(50)) == LiveSession(session: session, user: world.ben))
        #expect(try await accounts.liveSession(idHash: "h1", now: .at(100)) == nil, "expired")
        #expect(try await accounts.liveSession(idHash: "h2", now: .at(50)) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func peopleAreFoundByIdAndHandleAndHandlesAreUniqueWhateverTheirCase(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        #expect(try await world.store.user(world.ana.id) == world.ana)
        #expect(try await world.store.user(handle: "ben") == world.ben)
        #expect(world.ana.timeZoneIdentifier == "Europe/Paris" && world.ana.localeIdentifier == "fr_FR")
        await #expect(throws: Refusal.handleTaken("ANA")) {
            try await world.store.createUser(NewUser(handle: "ANA", displayName: "Other Ana"), at: .at(1))
        }
        #expect(try await world.store.user(handle: "zed") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func suggestionsMatchHandlesAndNamesByPrefixAndLeaveOutTheViewer(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        #expect(try await world.store.users(matching: "b", excluding: world.ana.id, limit: 10).map(\.handle) == ["ben"])
        #expect(try await world.store.users(matching: "ch", excluding: world.ana.id, limit: 10).map(\.handle) == ["chloe"])
        #expect(try await world.store.users(matching: "a", excluding: world.ana.id, limit: 10).isEmpty)
        #expect(try await world.store.users(matching: "%", excluding: world.ana.id, limit: 10).isEmpty)
        #expect(try await world.store.users(matching: "", excluding: world.ana.id, limit: 1).count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aPairHasOneChatAndNobodyChatsWithThemselves(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ben.id, and: world.ana.id, at: .at(5))
        #expect(chat.members == [world.ana.id, world.ben.id])
        #expect(try await world.store.chat(chat.id) == chat)
        await #expect(throws: Refusal.chatExists(chat.id)) {
            try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(6))
        }
        await #expect(throws: Refusal.chatWithYourself) {
            try await world.store.createChat(between: world.ana.id, and: world.ana.id, at: .at(6))
        }
        await #expect(throws: Refusal.notFound) {
            try await world.store.createChat(between: world.ana.id, and: UserID(999), at: .at(6))
        }
        #expect(try await world.store.chat(ChatID(999)) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func theChatListHasTheLastMessageAndUnreadCountNewestActivityFirst(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let withBen = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(10))
        let withChloe = try await world.store.createChat(between: world.ana.id, and: world.chloe.id, at: .at(20))
        #expect(try await world.store.chatList(for: world.ana.id).map(\.chatID) == [withChloe.id, withBen.id])

        _ = try await world.send(withBen.id, from: world.ben, "Hi Ana", at: 30)
        let last = try await world.send(withBen.id, from: world.ben, "Are you there?", at: 31)
        _ = try await world.send(withBen.id, from: world.ana, "Yes!", at: 32)
        let list = try await world.store.chatList(for: world.ana.id)
        #expect(list.map(\.chatID) == [withBen.id, withChloe.id])
        #expect(list[0].contact == world.ben)
        #expect(list[0].lastMessage?.body == "Yes!")
        #expect(list[0].unreadCount == 2)
        #expect(list[0].lastActivity == .at(32))
        #expect(list[1].lastMessage == nil && list[1].unreadCount == 0)
        #expect(try await world.store.chatList(for: world.ben.id).map(\.unreadCount) == [1])
        #expect(try await world.store.unreadTotal(for: world.ana.id) == 2)
        #expect(try await world.store.chatSummary(withBen.id, for: world.ana.id) == list[0])
        #expect(try await world.store.chatSummary(withBen.id, for: world.chloe.id) == nil)

        #expect(try await world.store.markRead(ReadReport(chatID: withBen.id, readerID: world.ana.id, upTo: last.id)) == last.id)
        #expect(try await world.store.unreadTotal(for: world.ana.id) == 0)

        // Activity at the same moment: the newer chat comes first, always in the same order.
        _ = try await world.send(withChloe.id, from: world.chloe, "Same second", at: 32)
        #expect(try await world.store.chatList(for: world.ana.id).map(\.chatID) == [withChloe.id, withBen.id])
    }

    @Test(arguments: StoreKind.allCases)
    func aRepeatedTokenReturnsTheFirstMessageInsteadOfADuplicate(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        let first = try await world.send(chat.id, from: world.ana, "Once", at: 1, token: "form-1")
        let again = try await world.send(chat.id, from: world.ana, "Once, typed again", at: 2, token: "form-1")
        #expect(again == first)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages == [first])
        // Tokens belong to their sender: Ben's "form-1" is another message.
        #expect(try await world.send(chat.id, from: world.ben, "Mine", at: 3, token: "form-1") != first)
    }

    @Test(arguments: StoreKind.allCases)
    func onlyMembersSendAndRepliesStayInTheirChat(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let (chat, elsewhere) = try await world.chatAndAMessageElsewhere()
        await #expect(throws: Refusal.notFound) { try await world.send(chat.id, from: world.chloe, "Let me in", at: 2) }
        await #expect(throws: Refusal.notFound) { try await world.send(chat.id, from: world.ana, "Quoting", at: 2, replyTo: elsewhere.id) }
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.isEmpty)
        let question = try await world.send(chat.id, from: world.ben, "Lunch?", at: 3)
        let answer = try await world.send(chat.id, from: world.ana, "Yes", at: 4, replyTo: question.id)
        #expect(try await world.store.message(answer.id)?.replyTo == question.id)
    }

    @Test(arguments: StoreKind.allCases)
    func historyComesNewestFiftyFirstThenOlderByKeyset(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        var sent: [Message] = []
        for index in 0..<120 { sent.append(try await world.send(chat.id, from: index % 2 == 0 ? world.ana : world.ben, "m\(index)", at: Double(index))) }
        let newest = try await world.store.messages(in: chat.id, before: nil, limit: 50)
        #expect(newest.messages == Array(sent[70..<120]) && newest.hasOlder)
        let older = try await world.store.messages(in: chat.id, before: newest.messages.first?.id, limit: 50)
        #expect(older.messages == Array(sent[20..<70]) && older.hasOlder)
        let oldest = try await world.store.messages(in: chat.id, before: older.messages.first?.id, limit: 50)
        #expect(oldest.messages == Array(sent[0..<20]) && !oldest.hasOlder)
    }

    @Test(arguments: StoreKind.allCases)
    func onlyTheSenderEditsAndTheEditIsMarked(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        let message = try await world.send(chat.id, from: world.ana, "Helo", at: 1)
        let edited = try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "Hello", editedAt: .at(5)))
        #expect(edited.body == "Hello" && edited.editedAt == .at(5) && edited.createdAt == .at(1))
        #expect(try await world.store.message(message.id) == edited)
        await #expect(throws: Refusal.notYourMessage) {
            try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.ben.id, body: "Hijacked", editedAt: .at(6)))
        }
        await #expect(throws: Refusal.notFound) {
            try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.chloe.id, body: "Hijacked", editedAt: .at(6)))
        }
        #expect(try await world.store.message(message.id)?.body == "Hello")
    }

    @Test(arguments: StoreKind.allCases)
    func readMarksOnlyMoveForwardAndOnlyForMembers(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        #expect(try await world.store.markRead(ReadReport(chatID: chat.id, readerID: world.ana.id)) == nil)
        let first = try await world.send(chat.id, from: world.ben, "1", at: 1)
        let second = try await world.send(chat.id, from: world.ben, "2", at: 2)
        #expect(try await world.store.markRead(ReadReport(chatID: chat.id, readerID: world.ana.id)) == second.id)
        #expect(try await world.store.markRead(ReadReport(chatID: chat.id, readerID: world.ana.id, upTo: first.id)) == second.id)
        #expect(try await world.store.membership(chat.id, world.ana.id)?.lastRead == second.id)
        #expect(try await world.store.membership(chat.id, world.chloe.id) == nil)
        await #expect(throws: Refusal.notFound) {
            try await world.store.markRead(ReadReport(chatID: chat.id, readerID: world.chloe.id))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func profilesChangeOnlyTheFieldsGiven(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let updated = try await world.store.updateProfile(ProfileChange(userID: world.ben.id, timeZoneIdentifier: "Asia/Tokyo", localeIdentifier: "ja_JP"))
        #expect(updated.displayName == "Ben Okafor" && updated.timeZoneIdentifier == "Asia/Tokyo" && updated.localeIdentifier == "ja_JP")
        #expect(try await world.store.user(world.ben.id) == updated)
        await #expect(throws: Refusal.notFound) { try await world.store.updateProfile(ProfileChange(userID: UserID(999), displayName: "Ghost")) }
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentSendersAllGetTheirOwnMessageStored(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(0))
        let store = world.store
        let (ana, ben) = (world.ana, world.ben)
        let ids = try await withThrowingTaskGroup(of: MessageID.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try await store.send(OutgoingMessage(chatID: chat.id, senderID: index % 2 == 0 ? ana.id : ben.id, body: "n\(index)", token: "t\(index)", createdAt: .at(Double(index)))).id
                }
            }
            return try await group.reduce(into: Set<MessageID>()) { $0.insert($1) }
        }
        #expect(ids.count == 64)
        #expect(try await store.messages(in: chat.id, before: nil, limit: 100).messages.count == 64)
    }

    /// Sends arriving together share one transaction in the SQLite store: a refused send, and a repeated
    /// token, among them must change nothing while every other send is stored and counted once.
    @Test(arguments: StoreKind.allCases)
    func refusedAndRepeatedSendsAmongConcurrentOnesChangeNothing(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let (chat, elsewhere) = try await world.chatAndAMessageElsewhere()
        let store = world.store
        let (ana, chloe) = (world.ana, world.chloe)
        let results = await withTaskGroup(of: (Int, Result<Message, Refusal>).self) { group in
            for index in 0..<96 {
                group.addTask {
                    let outgoing: OutgoingMessage
                    switch index % 4 {
                    case 0: outgoing = OutgoingMessage(chatID: chat.id, senderID: chloe.id, body: "Let me in \(index)", token: "c\(index)", createdAt: .at(1))
                    case 1: outgoing = OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "Quoting \(index)", replyTo: elsewhere.id, token: "q\(index)", createdAt: .at(1))
                    case 2: outgoing = OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "Twice", token: "same", createdAt: .at(1))
                    default: outgoing = OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "n\(index)", token: "t\(index)", createdAt: .at(1))
                    }
                    do {
                        return (index, .success(try await store.send(outgoing)))
                    } catch let refusal as Refusal {
                        return (index, .failure(refusal))
                    } catch {
                        Issue.record("unexpected error \(error)")
                        return (index, .failure(.notFound))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Message, Refusal>]()) { $0[$1.0] = $1.1 }
        }
        var repeated = Set<MessageID>()
        for (index, result) in results {
            switch index % 4 {
            case 0, 1: #expect(result == .failure(.notFound), "send \(index)")
            case 2: repeated.insert(try #require(try? result.get()).id)
            default: #expect((try? result.get())?.body == "n\(index)")
            }
        }
        #expect(repeated.count == 1, "every send with the token \"same\" got the first one")
        let stored = try await store.messages(in: chat.id, before: nil, limit: 100).messages
        #expect(stored.count == 24 + 1)
        #expect(stored.allSatisfy { $0.senderID == ana.id && $0.replyTo == nil })
        let benList = try await store.chatList(for: world.ben.id)
        #expect(benList.first?.unreadCount == 25)
        #expect(benList.first?.lastMessage?.id == stored.last?.id)
    }
}
