import Foundation
import ParlorDomain
import ParlorViews

extension Fixtures {
    /// The longest content people paste, in a room with the longest name and topic: a 200-character word, a
    /// 140-character line of code, a 300-character address, right-to-left text, a quote of them and notices, opened
    /// at its first unread message. Rendered into the gallery's frames, these are the states a layout must hold.
    static var longContent: [Fixture] {
        let world = FixtureWorld()
        let word = String(repeating: "Supercalifragilistic", count: 10)
        let code = "2026-11-28T09:14:03.118Z ERROR [parlor.live] lane=room-17 event=message.created " + String(repeating: "x", count: 60)
        let address = "https://example.com/" + (0..<16).map { String(format: "segment%02d-abcdefghij", $0) }.joined(separator: "/") + "?q=1"
        let name = String(String(repeating: "Design review ", count: 15).prefix(200))
        let topic = String(String(repeating: "Everything about the launch, the slides, the budget and who brings the cake ", count: 3).prefix(200))
        let heading = ChatHeading(kind: .open, name: name, topic: topic, memberCount: 40, contact: nil)
        let at = { (minutes: Double) in world.now.addingTimeInterval(-3600 + minutes * 60) }
        let room = ChatID(70)
        let messages = [
            Message(id: MessageID(700), chatID: room, senderID: world.ana.id, body: "", createdAt: at(0), notice: RoomNotice(kind: .renamed, text: name)),
            Message(id: MessageID(701), chatID: room, senderID: world.ana.id, body: "", createdAt: at(1), notice: RoomNotice(kind: .topicChanged, text: topic)),
            Message(id: MessageID(702), chatID: room, senderID: world.ben.id, body: word, createdAt: at(2)),
            Message(id: MessageID(703), chatID: room, senderID: world.ben.id, body: "The log says:\n```\n\(code)\n```", createdAt: at(3)),
            Message(id: MessageID(704), chatID: room, senderID: world.chloe.id, body: "See \(address)", createdAt: at(4)),
            Message(id: MessageID(705), chatID: room, senderID: world.dmitri.id, body: "שלום לכולם, הפגישה נדחתה למחר בעשר בבוקר. مرحبا بالجميع", createdAt: at(5)),
            Message(id: MessageID(706), chatID: room, senderID: world.ana.id, body: "Looks good to me, @ben " + word.prefix(60), createdAt: at(6), replyTo: MessageID(702)),
        ]
        let snapshot = ConversationSnapshot(
            chatID: room, heading: heading, messages: messages, people: [world.ben, world.chloe, world.dmitri],
            readers: [Reader(user: world.ben, lastRead: MessageID(706)), Reader(user: world.chloe, lastRead: MessageID(704))]
        )
        let summary = ChatSummary(chatID: room, heading: heading, lastMessage: messages.last, lastSenderName: "Ana Lima", unreadCount: 3, lastActivity: world.now)
        let builder = ConversationBuilder(context: world.context)
        let conversation = builder.conversation(snapshot, draft: ComposerDraft(token: "tok-long"), unreadAfter: MessageID(703), hasNewer: true)
        let pages = PageBuilder(context: world.context)
        let list = ChatListBuilder(context: world.context).loaded([summary] + world.summaries, current: room)
        return [
            Fixture("long-content/room-page", pages.chats(
                list: list, conversation: conversation, title: name, unreadTotal: 3, openChat: room, showsNewest: false, showsWindow: true
            ), isPage: true),
            Fixture("long-content/conversation", conversation),
            Fixture("long-content/members-page", RoomPagesBuilder(context: world.context).members(
                room, heading, members: [world.ana, world.ben, world.chloe, world.dmitri], layout: pages.layout(title: "Members of " + name)
            ), isPage: true),
        ]
    }
}
