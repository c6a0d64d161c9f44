import Foundation
import ParlorDomain
import Testing

/// A message's link card in every store: kept once, for the link its text holds; gone with an edit or a deletion;
/// removed for good by its sender only.
@Suite struct PreviewStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    static let card = LinkPreview(url: "https://example.org/menu", title: "Today's menu", description: "Soup", siteName: "Bistro")

    @Test(arguments: StoreKind.allCases)
    func aCardIsKeptOnceWithItsMessageAndReadWithIt(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        let message = try await world.send(chat.id, from: world.ana, "Lunch? https://example.org/menu", at: 2)
        #expect(message.preview == nil)

        let previewed = try #require(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card)))
        #expect(previewed.preview == Self.card && previewed.body == message.body)
        #expect(try await world.store.message(message.id)?.preview == Self.card)
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.last?.preview == Self.card)
        let conversation = try #require(try await world.store.conversation(chat.id, viewer: world.ben.id, before: nil, limit: 10))
        #expect(conversation.messages.last?.preview == Self.card, "read with the conversation")
        let screen = try await world.store.chatsScreen(for: world.ben.id, open: chat.id, before: nil, limit: 10)
        #expect(screen.conversation?.messages.last?.preview == Self.card)

        // A second card for it, a card for a link it does not hold, for a message that does not exist: nothing.
        #expect(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card)) == nil)
        let other = try await world.send(chat.id, from: world.ben, "No link here", at: 3)
        #expect(try await world.store.recordPreview(PreviewResult(messageID: other.id, preview: Self.card)) == nil)
        #expect(try await world.store.recordPreview(PreviewResult(messageID: MessageID(999_999), preview: Self.card)) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func anEditOrADeletionTakesTheCardAndOnlyItsSenderRemovesIt(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        let message = try await world.send(chat.id, from: world.ana, "See https://example.org/menu", at: 2)
        _ = try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card))

        // Edited: the card goes (the new text's link is read again), and a new one may come.
        let edited = try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "See https://example.org/menu today", editedAt: .at(3)))
        #expect(edited.preview == nil)
        #expect(try await world.store.message(message.id)?.preview == nil)
        #expect(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card))?.preview == Self.card)

        // Removed: by Ana only, for good (an edit does not bring it back; nothing is recorded again).
        await #expect(throws: Refusal.notYourMessage) { try await world.store.removePreview(PreviewRemoval(messageID: message.id, requesterID: world.ben.id)) }
        let removed = try await world.store.removePreview(PreviewRemoval(messageID: message.id, requesterID: world.ana.id))
        #expect(removed.preview == .removed)
        await #expect(throws: Refusal.notFound) { try await world.store.removePreview(PreviewRemoval(messageID: message.id, requesterID: world.ana.id)) }
        #expect(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card)) == nil)
        let again = try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "https://example.org/menu", editedAt: .at(4)))
        #expect(again.preview == .removed)
        #expect(try await world.store.message(message.id)?.preview == .removed)

        // Deleted: no card, ever.
        let second = try await world.send(chat.id, from: world.ben, "https://example.org/menu", at: 5)
        _ = try await world.store.recordPreview(PreviewResult(messageID: second.id, preview: Self.card))
        let deleted = try await world.store.delete(MessageDeletion(messageID: second.id, requesterID: world.ben.id, deletedAt: .at(6)))
        #expect(deleted.message.preview == nil)
        #expect(try await world.store.message(second.id)?.preview == nil)
        #expect(try await world.store.recordPreview(PreviewResult(messageID: second.id, preview: Self.card)) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aCardsPictureIsTheSendersImageSeenByTheChatOnlyAndGoesWithTheCard(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        guard let images = world.store as? any ImageStore else { Issue.record("no image store"); return }
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        let picture = [StoredImageVersion(role: .thumbnail, format: .webp, width: 320, height: 168, hash: "cafe01", byteCount: 900)]
        let message = try await world.send(chat.id, from: world.ana, "Lunch? https://example.org/menu", at: 2)

        let previewed = try #require(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card, image: picture)))
        let image = try #require(previewed.preview?.image)
        #expect(image.width == 320 && image.height == 168)
        #expect(previewed.preview == Self.card.with(image: image))
        #expect(try await world.store.message(message.id)?.preview?.image == image, "read back with the message")
        #expect(try await world.store.messages(in: chat.id, before: nil, limit: 10).messages.last?.preview?.image == image)
        let seen = try await images.image(image.id, visibleTo: world.ben.id)
        #expect(seen?.purpose == .linkPreview && seen?.ownerID == world.ana.id && seen?.version(.thumbnail)?.hash == "cafe01")
        #expect(try await images.image(image.id, visibleTo: world.chloe.id) == nil, "not Chloé's chat")
        #expect(try await images.imageHashes().contains("cafe01"), "the sweep keeps its file")

        // Edited: the card goes and its picture with it, for everyone.
        _ = try await world.store.edit(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "Lunch? https://example.org/menu now", editedAt: .at(3)))
        #expect(try await images.image(image.id, visibleTo: world.ana.id) == nil)
        #expect(try await images.image(image.id, visibleTo: world.ben.id) == nil)

        // A new card's picture goes when its sender removes the card, and with a deletion.
        let again = try #require(try await world.store.recordPreview(PreviewResult(messageID: message.id, preview: Self.card, image: picture))?.preview?.image)
        #expect(again.id != image.id)
        _ = try await world.store.removePreview(PreviewRemoval(messageID: message.id, requesterID: world.ana.id))
        #expect(try await images.image(again.id, visibleTo: world.ben.id) == nil)
        let second = try await world.send(chat.id, from: world.ben, "https://example.org/menu", at: 5)
        let third = try #require(try await world.store.recordPreview(PreviewResult(messageID: second.id, preview: Self.card, image: picture))?.preview?.image)
        #expect(try await images.image(third.id, visibleTo: world.ana.id)?.ownerID == world.ben.id)
        _ = try await world.store.delete(MessageDeletion(messageID: second.id, requesterID: world.ben.id, deletedAt: .at(6)))
        #expect(try await images.image(third.id, visibleTo: world.ben.id) == nil)

        // A card whose message changed meanwhile stores nothing, its picture included.
        let stale = try await world.store.recordPreview(PreviewResult(messageID: second.id, preview: Self.card, image: picture))
        #expect(stale == nil)
        #expect(try await images.image(ImageID(third.id.rawValue + 1), visibleTo: world.ben.id) == nil)
    }
}
