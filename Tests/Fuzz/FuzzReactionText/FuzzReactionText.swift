// libFuzzer entry: a reaction as a person types it, through the rules and into its button's words.
import ParlorDomain
import ParlorViews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReactionText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self), let reaction = try? ReactionText.validated(text) else { return 0 }
    // What is kept fits the rules, and keeping it again changes nothing.
    precondition(!reaction.isEmpty && reaction.count <= ReactionText.maximumLength && reaction.utf8.count <= ReactionText.maximumBytes)
    precondition(!reaction.contains(where: \.isNewline) && !reaction.utf8.contains { $0 < 0x20 && $0 != 0x09 })
    precondition((try? ReactionText.validated(reaction)) == reaction)
    // Counted and drawn for a giver and for someone else.
    let counts = StoredReaction.counts([
        StoredReaction(messageID: MessageID(1), userID: UserID(1), text: reaction, at: .now, name: text),
        StoredReaction(messageID: MessageID(1), userID: UserID(2), text: reaction, at: .now, name: ""),
    ])
    precondition(counts[MessageID(1)]?.count == 1 && counts[MessageID(1)]?.first?.people.count == 2)
    for viewer in [UserID(1), UserID(3)] {
        let list = ReactionsBuilder(viewer: viewer, paths: Paths(basePath: "")).reactions(to: MessageID(1), in: ChatID(1), counts[MessageID(1)] ?? [])
        precondition(list.items.count == 1 && list.items[0].count == "2" && list.items[0].isMine == (viewer == UserID(1)))
        precondition(list.items[0].label.hasSuffix(" reacted with " + reaction))
    }
    return 0
}
