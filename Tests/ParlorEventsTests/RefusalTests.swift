import Foundation
import ParlorDomain
import ParlorEvents
import Testing

/// Bad input is refused with a reason a person understands, before anything is shown or stored.
@Suite struct RefusalTests {
    @Test(arguments: [
        ("", Refusal.emptyMessage),
        (" \n\t  \n", Refusal.emptyMessage),
        (String(repeating: "a", count: 4_001), Refusal.messageTooLong(limit: 4_000)),
    ])
    func aMessageThatCannotBeSentChangesNothing(_ body: String, _ reason: Refusal) async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let (anaPage, _) = try await world.page(world.ana, open: chat)
        let (benPage, _) = try await world.page(world.ben)
        anaPage.clear()
        benPage.clear()
        let outgoing = world.outgoing(chat, world.ana, body, token: "t")
        #expect(await world.router.send(.sending(outgoing)) == .failedSending(outgoing, reason: reason))
        #expect(anaPage.updates.isEmpty && benPage.updates.isEmpty)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.isEmpty)
        #expect(!reason.message.isEmpty)
    }

    @Test func fourThousandCharactersAreAllowedCountedAsAPersonCountsThem() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        // 4,000 family emoji: 4,000 characters, far more bytes and scalars.
        let body = String(repeating: "👨‍👩‍👧", count: 4_000)
        let sent = try await world.send(chat, world.ana, body)
        #expect(sent.body == body)
    }

    @Test func invalidUTF8IsRefusedNotRepaired() throws {
        #expect(throws: Refusal.invalidText) { try MessageText.validated(bytes: [0x48, 0xC3, 0x28]) }
        #expect(try MessageText.validated(bytes: Array("Olá".utf8)) == "Olá")
    }

    @Test func everyC0ControlButTabLineFeedAndReturnIsRefusedInStoredText() throws {
        for value in UInt32(0)..<0x20 {
            let text = "a\(Character(Unicode.Scalar(value)!))b"
            if [0x09, 0x0A, 0x0D].contains(value) {
                #expect(try MessageText.validated(text) == text)
            } else {
                #expect(throws: Refusal.controlCharacter) { try MessageText.validated(text) }
                #expect(throws: Refusal.controlCharacter) { try DisplayName.validated(text) }
            }
        }
        // A NUL at the start is refused, not trimmed away into an empty message or name.
        #expect(throws: Refusal.controlCharacter) { try MessageText.validated("\0anything") }
        #expect(throws: Refusal.controlCharacter) { try DisplayName.validated("\0Alice") }
        #expect(StoredText.identifier("Europe/Paris") == "Europe/Paris")
        #expect(StoredText.identifier("UTC\0junk") == nil)
        #expect(StoredText.identifier(String(repeating: "a", count: 65)) == nil)
    }

    @Test func aMessageOrProfileWithANulChangesNothing() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let outgoing = OutgoingMessage(chatID: chat.id, senderID: world.ana.id, body: "\0anything", token: "t-nul", createdAt: world.clock.now)
        #expect(await world.router.send(.sending(outgoing)) == .failedSending(outgoing, reason: .controlCharacter))
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.isEmpty)
        let change = ProfileChange(userID: world.ana.id, displayName: "\0Alice", timeZoneIdentifier: nil, localeIdentifier: nil)
        #expect(await world.router.send(.updatingProfile(change)) == .profileUpdateFailed(change, reason: .controlCharacter))
        #expect(try await world.store.user(world.ana.id)?.displayName == world.ana.displayName)
    }

    @Test func chatsWithYourselfUnknownOrMalformedHandlesAreRefused() async throws {
        let world = try await ChatWorld()
        #expect(await world.router.send(.creating(creator: world.ana.id, contactHandle: "ana")) == .createFailed(creator: world.ana.id, reason: .chatWithYourself))
        #expect(await world.router.send(.creating(creator: world.ana.id, contactHandle: "@nobody")) == .createFailed(creator: world.ana.id, reason: .unknownHandle("nobody")))
        #expect(await world.router.send(.creating(creator: world.ana.id, contactHandle: "<b>x</b>")) == .createFailed(creator: world.ana.id, reason: .unknownHandle("<b>x</b>")))
        #expect(try await world.store.chatList(for: world.ana.id).allSatisfy(\.heading.isRoom), "no direct chat was made")

        let chat = try await world.chat(world.ana, world.ben)
        #expect(await world.router.send(.creating(creator: world.ben.id, contactHandle: "@Ana")) == .createFailed(creator: world.ben.id, reason: .chatExists(chat.id)))
        #expect(try await world.store.chatList(for: world.ben.id).filter { !$0.heading.isRoom }.count == 1)
    }

    @Test func aTakenOrMalformedHandleOrAnEmptyNameCreatesNoAccount() async throws {
        let world = try await ChatWorld()
        let cases: [(NewUser, Refusal)] = [
            (NewUser(handle: "BEN", displayName: "Another Ben"), .handleTaken("ben")),
            (NewUser(handle: "a", displayName: "Too short"), .invalidHandle),
            (NewUser(handle: "no spaces", displayName: "Spaces"), .invalidHandle),
            (NewUser(handle: "dmitri", displayName: "   "), .invalidDisplayName),
            // What a mention of the whole room says: nobody may be called that.
            (NewUser(handle: "@Everyone", displayName: "Everyone"), .handleTaken("everyone")),
            (NewUser(handle: "here", displayName: "Here"), .handleTaken("here")),
        ]
        for (user, reason) in cases {
            #expect(await world.router.send(.signingUp(user)) == .signUpFailed(handle: user.handle, reason: reason))
        }
        #expect(try await world.store.user(handle: "dmitri") == nil)
        #expect(try await world.store.users(matching: "", excluding: UserID(0), limit: 10).count == 3)
    }

    @Test func someoneOutsideAChatCannotSendReadOrEditThere() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let message = try await world.send(chat, world.ana, "Private")
        let intrusion = world.outgoing(chat, world.chloe, "Hi both", token: "x")
        #expect(await world.router.send(.sending(intrusion)) == .failedSending(intrusion, reason: .notFound))
        #expect(await world.router.send(.userReads(ReadReport(chatID: chat.id, readerID: world.chloe.id))) == .userReads(ReadReport(chatID: chat.id, readerID: world.chloe.id)))
        let edit = MessageEdit(messageID: message.id, editorID: world.chloe.id, body: "Changed", editedAt: world.clock.now)
        #expect(await world.router.send(.editing(edit)) == .failedEditing(edit, reason: .notFound))
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages == [message])
    }

    @Test func aRepeatedTokenShowsOneMessage() async throws {
        let world = try await ChatWorld()
        let chat = try await world.chat(world.ana, world.ben)
        let first = try await world.send(chat, world.ana, "Once", token: "same")
        let again = try await world.send(chat, world.ana, "Once", token: "same")
        #expect(first == again)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.count == 1)
    }
}
