import Foundation
import ParlorDomain
import ParlorStorage
import Testing

/// SQLite's account log: what one process on a file changes of sessions, passwords, roles and preferences, another
/// process on the same file reads back as the same events (two stores stand for the two processes: each has its
/// own connections and its own origin), its own changes never, and nothing at all while nobody else committed.
@Suite struct AccountLogTests {
    @Test func anotherProcessesAccountChangesAreReadBackOnceAndOurOwnNever() async throws {
        let folder = try TemporaryFolder()
        let server = try SQLiteChatStore(path: folder.path("parlor.sqlite"))
        let ana = try await server.createUser(NewUser(handle: "ana", displayName: "Ana", passwordHash: "old"), at: .at(0))
        let ben = try await server.createUser(NewUser(handle: "ben", displayName: "Ben", passwordHash: "old"), at: .at(0))
        try await server.createSession(StoredSession(idHash: "ana-laptop", userID: ana.id, csrfToken: "t", createdAt: .at(0), expiresAt: .at(100)))
        // The server's own changes are news to nobody here (its pages heard them from its own bus).
        #expect(try await server.accountEventsFromOtherProcesses().isEmpty)

        let admin = try SQLiteChatStore(path: folder.path("parlor.sqlite"))
        let reset = try await admin.resetPassword(handle: "ana", to: "new")
        _ = try await admin.setRole(.administrator, of: ben.id)
        try await admin.setNotificationPreferences(NotificationPreferences(isPrivate: false, appearsOffline: true), of: ben.id)
        #expect(reset == SessionsEnded(userID: ana.id, count: 1, cause: .passwordReset))
        #expect(try await server.accountEventsFromOtherProcesses() == [
            .sessionsEnded(reset), .roleChanged(person: ben.id, .administrator),
            .preferencesChanged(ben.id, NotificationPreferences(isPrivate: false, appearsOffline: true)),
        ])
        #expect(try await server.accountEventsFromOtherProcesses().isEmpty, "read once")

        // Writes of the server's own in between are passed over; the other process's next change is read.
        _ = try await server.endSessions(of: ben.id, keeping: nil)
        try await admin.replaceJoinLink(JoinLink(code: "c0de", createdAt: .at(1), expiresAt: nil, usesLimit: nil, uses: 0))
        #expect(try await server.accountEventsFromOtherProcesses() == [.joinLinkReplaced])
        // And what the other process stores of a chat is no account event.
        _ = try await admin.createRoom(NewRoom(creator: ana.id, kind: .open, name: "Launch", topic: nil, createdAt: .at(2)))
        #expect(try await server.accountEventsFromOtherProcesses().isEmpty)
    }

    @Test func everyStoredAccountEventSurvivesTheLogAndCommandsAreNotLogged() {
        let user = UserID(42)
        let stored: [AccountEvent] = [
            .signedIn(user), .roleChanged(person: user, .member), .roleChanged(person: user, .administrator), .settingsChanged, .joinLinkReplaced,
            .botKeyReplaced(user), .pushSubscriptionsChanged(user), .preferencesChanged(user, NotificationPreferences(isPrivate: true, appearsOffline: false)),
        ] + SessionsEnded.Cause.allCases.map { .sessionsEnded(SessionsEnded(userID: user, count: 3, cause: $0)) }
        for event in stored {
            let entry = AccountLogEntry(event)
            #expect(entry != nil)
            #expect(entry.flatMap { AccountLogEntry.event(kind: $0.kind, ids: $0.ids) } == event)
            #expect(DomainEvent.account(event).isStoredChange)
        }
        #expect(AccountLogEntry(.signingOut(sessionHash: "secret")) == nil, "a command, with a session's hash, is never logged")
        #expect(AccountLogEntry(.refused(.notFound)) == nil)
        // Rows a later version wrote, or that were tampered with, are passed over.
        #expect(AccountLogEntry.event(kind: "account.sessionsEnded", ids: [1, 2]) == nil)
        #expect(AccountLogEntry.event(kind: "account.sessionsEnded", ids: [1, -1, 1]) == nil)
        #expect(AccountLogEntry.event(kind: "account.sessionsEnded", ids: [1, 1, 99]) == nil)
        #expect(AccountLogEntry.event(kind: "account.somethingNew", ids: [1]) == nil)
        #expect(AccountLogEntry.event(kind: "account.signedIn", ids: []) == nil)
    }
}
