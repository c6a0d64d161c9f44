import Foundation
import ParlorDomain
import Testing

/// What the logs may say about an event: its name, never its values.
@Suite struct EventKindTests {
    @Test func anEventIsLoggedByItsNameWithoutItsBody() {
        let message = Message(id: MessageID(1), chatID: ChatID(2), senderID: UserID(3), body: "my secret plans", createdAt: Date(timeIntervalSince1970: 0))
        let sent = DomainEvent.message(.sent(message, token: "t"))
        #expect(sent.kind == "message.sent")
        #expect(!sent.kind.contains("secret"))
        #expect(DomainEvent.user(.signingUp(NewUser(handle: "ana", displayName: "Ana", passwordHash: "$argon2id$x"))).kind == "user.signingUp")
        #expect(DomainEvent.message(.userReads(ReadReport(chatID: ChatID(1), readerID: UserID(1)))).kind == "message.userReads")
    }
}
