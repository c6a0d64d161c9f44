import Foundation
import ParlorDomain
import Synchronization

/// A ``ChatStore`` in memory: the same behaviour as the SQLite store, for tests (the store behaviour suite holds it
/// to the others; it is no part of what Parlor serves).
/// Every method runs under one lock, so each is atomic like a transaction.
public final class InMemoryChatStore: ChatStore, AccountStore, ImageStore, FeedStore {
    struct State {
        var users: [UserID: User] = [:]
        var userIDsByHandle: [String: UserID] = [:]
        var chats: [ChatID: Chat] = [:]
        var chatIDsByPair: [[UserID]: ChatID] = [:]
        var chatIDsByUser: [UserID: Set<ChatID>] = [:]
        var lastActivity: [ChatID: Date] = [:]
        var messages: [MessageID: Message] = [:]
        /// Message ids per chat, ascending.
        var messageIDsByChat: [ChatID: [MessageID]] = [:]
        var messageIDsByToken: [String: MessageID] = [:]
        var lastRead: [ChatKey: MessageID] = [:]
        /// How closely each member follows a chat, when not as they joined it.
        var involvement: [ChatKey: Involvement] = [:]
        /// When a member joined a chat after it was made (a person who signed up after an open room was made).
        var joinedAt: [ChatKey: Date] = [:]
        /// The chat's newest message when each member joined it (none: a member since it began).
        var joinedAfter: [ChatKey: MessageID] = [:]
        var passwordHashes: [UserID: String] = [:]
        var sessions: [String: StoredSession] = [:]
        var images: [ImageID: StoredImage] = [:]
        /// The upload of each pending photo.
        var originals: [ImageID: String] = [:]
        var nextImage: Int64 = 1
        var nextUser: Int64 = 1
        var nextChat: Int64 = 1
        var nextMessage: Int64 = 1
        var feeds: [FeedSubscriptionID: FeedSubscription] = [:]
        /// Each key, with the last check whose document held it.
        var seenFeedKeys: [FeedSubscriptionID: [String: Date]] = [:]
        var nextFeed: Int64 = 1
        /// Every reaction, in the order given.
        var reactions: [StoredReaction] = []
        var roles: [UserID: Role] = [:]
        var deactivatedAt: [UserID: Date] = [:]
        /// The sign-up policy kept; nil until one is (a new Parlor).
        var signUpPolicy: SignUpPolicy?
        var onlyAdministratorsCreateRooms = false
        var joinLink: JoinLink?
        var bots: [UserID: (credential: BotCredential, createdAt: Date)] = [:]
    }

    struct ChatKey: Hashable {
        let chat: ChatID
        let user: UserID
    }

    let state = Mutex(State())

    public init() {}

    public func createUser(_ user: NewUser, at date: Date) async throws -> User {
        try state.withLock { state throws(Refusal) in
            let key = user.handle.lowercased()
            guard state.userIDsByHandle[key] == nil else { throw .handleTaken(user.handle) }
            let role = try Self.admit(user, at: date, in: &state)
            let id = UserID(state.nextUser)
            state.nextUser += 1
            let created = User(
                id: id, handle: user.handle, displayName: user.displayName, timeZoneIdentifier: user.timeZoneIdentifier,
                localeIdentifier: user.localeIdentifier, isBot: user.isBot
            )
            state.users[id] = created
            state.userIDsByHandle[key] = id
            state.passwordHashes[id] = user.passwordHash
            if !user.isBot { state.roles[id] = role }
            if let bot = user.bot { state.bots[id] = (bot, date) }
            _ = Self.joinOpenRooms(id, at: date, in: &state)
            return created
        }
    }

    public func user(_ id: UserID) async throws -> User? { state.withLock { $0.users[id] } }

    public func user(handle: String) async throws -> User? {
        state.withLock { state in
            state.userIDsByHandle[handle.lowercased()].flatMap { state.deactivatedAt[$0] == nil ? state.users[$0] : nil }
        }
    }

    public func users(matching prefix: String, excluding: UserID, limit: Int) async throws -> [User] {
        let prefix = prefix.lowercased()
        return state.withLock { state in
            state.users.values
                .filter { $0.id != excluding && state.deactivatedAt[$0.id] == nil && ($0.handle.lowercased().hasPrefix(prefix) || $0.displayName.lowercased().hasPrefix(prefix)) }
                .sorted { $0.handle < $1.handle }
                .prefix(limit)
                .map { $0 }
        }
    }

    public func updateProfile(_ change: ProfileChange) async throws -> User {
        try state.withLock { state throws(Refusal) in
            guard let old = state.users[change.userID] else { throw .notFound }
            let updated = User(
                id: old.id, handle: old.handle, displayName: change.displayName ?? old.displayName,
                timeZoneIdentifier: change.timeZoneIdentifier ?? old.timeZoneIdentifier,
                localeIdentifier: change.localeIdentifier ?? old.localeIdentifier,
                avatar: change.avatar.map { avatar in
                    let id = ImageID(state.nextImage)
                    state.nextImage += 1
                    state.images[id] = StoredImage(id: id, ownerID: old.id, purpose: avatar.purpose, versions: avatar.versions)
                    return id
                } ?? (change.removesAvatar ? nil : old.avatar),
                isBot: old.isBot
            )
            state.users[old.id] = updated
            return updated
        }
    }

    public func imageHashes() async throws -> Set<String> {
        state.withLock { Set($0.images.values.flatMap { $0.versions.map(\.hash) }) }
    }

    public func image(_ id: ImageID, visibleTo viewer: UserID) async throws -> StoredImage? {
        state.withLock { state in
            guard let image = state.images[id] else { return nil }
            if image.ownerID == viewer { return image }
            if image.purpose == .message {
                guard let message = image.messageID.flatMap({ state.messages[$0] }) else { return nil }
                return state.chats[message.chatID]?.hasMember(viewer) == true ? image : nil
            }
            if image.purpose == .linkPreview {
                let chats = state.messages.values.filter { $0.preview?.image?.id == id }.map(\.chatID)
                return chats.contains { state.chats[$0]?.hasMember(viewer) == true } ? image : nil
            }
            if image.purpose == .feedIcon {
                // Seen by the members of a chat that follows the feed, or where it posted with this icon.
                let chats = state.feeds.values.filter { $0.icon?.image == id }.map(\.chatID)
                    + state.messages.values.filter { $0.feed?.icon == id }.map(\.chatID)
                return chats.contains { state.chats[$0]?.hasMember(viewer) == true } ? image : nil
            }
            return state.chatIDsByPair[[image.ownerID, viewer].sorted()] != nil ? image : nil
        }
    }

    public func photosAround(_ message: MessageID, in chat: ChatID) async throws -> PhotosAround {
        state.withLock { state in
            let photos = state.messages.values.filter { $0.chatID == chat && $0.photo != nil && !$0.isDeleted }.sorted { $0.id < $1.id }
            return PhotosAround(
                previous: photos.last { $0.id < message }?.photo?.id, next: photos.first { $0.id > message }?.photo?.id
            )
        }
    }

    public func pendingPhotos() async throws -> [PendingPhoto] {
        state.withLock { state in
            state.originals.sorted { $0.key.rawValue < $1.key.rawValue }.map { PendingPhoto(imageID: $0.key, original: $0.value) }
        }
    }

    public func pendingOriginal(of image: ImageID) async throws -> String? {
        state.withLock { $0.originals[image] }
    }

    public func finishPhoto(_ result: PhotoResult) async throws -> Message? {
        state.withLock { state in
            guard state.originals.removeValue(forKey: result.imageID) != nil, let image = state.images[result.imageID],
                  let message = image.messageID.flatMap({ state.messages[$0] }), let pending = message.photo
            else { return nil }
            var photo = MessagePhoto(id: pending.id, state: .failed, width: pending.width, height: pending.height)
            var versions: [StoredImageVersion] = []
            if let made = result.versions, let thumbnail = made.first(where: { $0.role == .thumbnail }) {
                photo = MessagePhoto(id: pending.id, state: .ready, width: thumbnail.width, height: thumbnail.height)
                versions = made
            }
            state.images[image.id] = StoredImage(
                id: image.id, ownerID: image.ownerID, purpose: .message, versions: versions, state: photo.state, messageID: message.id
            )
            let finished = message.with(photo: photo)
            state.messages[message.id] = finished
            return finished
        }
    }

    public func createChat(between first: UserID, and second: UserID, at date: Date) async throws -> Chat {
        try state.withLock { state throws(Refusal) in
            guard first != second else { throw .chatWithYourself }
            guard state.users[first] != nil, state.users[second] != nil else { throw .notFound }
            let pair = [first, second].sorted()
            if let existing = state.chatIDsByPair[pair] { throw .chatExists(existing) }
            let chat = Chat(id: ChatID(state.nextChat), members: pair, createdAt: date)
            state.nextChat += 1
            state.chats[chat.id] = chat
            state.chatIDsByPair[pair] = chat.id
            for member in pair { state.chatIDsByUser[member, default: []].insert(chat.id) }
            state.lastActivity[chat.id] = date
            return chat
        }
    }

    public func createRoom(_ room: NewRoom) async throws -> Chat {
        try state.withLock { state throws(Refusal) in try Self.insert(room, in: &state) }
    }

    public func createFirstRoom(_ room: NewRoom) async throws -> Chat? {
        try state.withLock { state throws(Refusal) in
            guard !state.chats.values.contains(where: { $0.kind == .open }) else { return nil }
            return try Self.insert(room, in: &state)
        }
    }

    private static func insert(_ room: NewRoom, in state: inout State) throws(Refusal) -> Chat {
        guard room.kind != .direct else { throw .notFound }
        let members = room.kind == .open ? state.users.keys.filter { state.deactivatedAt[$0] == nil } : room.closedMembers
        guard members.allSatisfy({ state.users[$0] != nil }), state.users[room.creator] != nil else { throw .notFound }
        let chat = Chat(id: ChatID(state.nextChat), members: members, createdAt: room.createdAt, kind: room.kind, name: room.name, topic: room.topic)
        state.nextChat += 1
        state.chats[chat.id] = chat
        for member in members { state.chatIDsByUser[member, default: []].insert(chat.id) }
        state.lastActivity[chat.id] = room.createdAt
        return chat
    }

    public func chat(_ id: ChatID) async throws -> Chat? { state.withLock { $0.chats[id] } }

    public func memberCount(of chat: ChatID) async throws -> Int? { state.withLock { $0.chats[chat]?.members.count } }

    public func createDirectChat(among people: [UserID], at date: Date) async throws -> Chat {
        try state.withLock { state throws(Refusal) in
            let members = Array(Set(people)).sorted()
            guard members.count > 2 else { throw .notFound }
            guard members.allSatisfy({ state.users[$0] != nil }) else { throw .notFound }
            if let existing = state.chatIDsByPair[members] { throw .chatExists(existing) }
            let chat = Chat(id: ChatID(state.nextChat), members: members, createdAt: date)
            state.nextChat += 1
            state.chats[chat.id] = chat
            state.chatIDsByPair[members] = chat.id
            for member in members { state.chatIDsByUser[member, default: []].insert(chat.id) }
            state.lastActivity[chat.id] = date
            return chat
        }
    }

    /// The names a direct chat of more than two is called by, for `viewer`.
    static func others(in chat: Chat, for viewer: UserID, _ state: State) -> [String] {
        guard chat.kind == .direct, chat.members.count > 2 else { return [] }
        let names = chat.members.filter { $0 != viewer }.compactMap { state.users[$0]?.displayName }.sorted { $0.lowercased() < $1.lowercased() }
        return Array(names.prefix(Chat.othersShown))
    }

    public func addMembers(_ people: [UserID], to id: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try state.withLock { state throws(Refusal) in
            let chat = try Self.room(id, by: by, in: state, kinds: [.closed], otherwise: .membersFixed)
            guard people.allSatisfy({ state.users[$0] != nil }) else { throw .notFound }
            var added: [UserID] = []
            for person in people where !chat.hasMember(person) && !added.contains(person) { added.append(person) }
            guard !added.isEmpty else { return RoomChange(chat: chat, notices: []) }
            let changed = chat.with(members: chat.members + added)
            state.chats[id] = changed
            for person in added {
                state.chatIDsByUser[person, default: []].insert(id)
                state.joinedAt[ChatKey(chat: id, user: person)] = date
                // What was said before is not unread for them, nor ever seen.
                state.lastRead[ChatKey(chat: id, user: person)] = state.messageIDsByChat[id]?.last
                state.joinedAfter[ChatKey(chat: id, user: person)] = state.messageIDsByChat[id]?.last
            }
            let notices = added.map { Self.notice(RoomNotice(kind: .added, subject: $0), in: id, by: by, at: date, state: &state) }
            return RoomChange(chat: changed, added: added, notices: notices)
        }
    }

    public func removeMember(_ person: UserID, from id: ChatID, by: UserID, at date: Date) async throws -> RoomChange {
        try state.withLock { state throws(Refusal) in
            let chat = try Self.room(id, by: by, in: state, kinds: [.closed], otherwise: .membersFixed)
            guard chat.hasMember(person) else { throw .notFound }
            let notice = Self.notice(
                person == by ? RoomNotice(kind: .left) : RoomNotice(kind: .removed, subject: person), in: id, by: by, at: date, state: &state
            )
            let changed = chat.with(members: chat.members.filter { $0 != person })
            state.chats[id] = changed
            state.chatIDsByUser[person]?.remove(id)
            state.lastRead[ChatKey(chat: id, user: person)] = nil
            return RoomChange(chat: changed, removed: [person], notices: [notice])
        }
    }

    public func renameRoom(_ id: ChatID, name: String, topic: String?, by: UserID, at date: Date) async throws -> RoomChange {
        try state.withLock { state throws(Refusal) in
            let chat = try Self.room(id, by: by, in: state, kinds: [.open, .closed], otherwise: .notARoom)
            var notices: [Message] = []
            if name != chat.name { notices.append(Self.notice(RoomNotice(kind: .renamed, text: name), in: id, by: by, at: date, state: &state)) }
            if topic != chat.topic { notices.append(Self.notice(RoomNotice(kind: .topicChanged, text: topic), in: id, by: by, at: date, state: &state)) }
            let changed = Chat(id: id, members: chat.members, createdAt: chat.createdAt, kind: chat.kind, name: name, topic: topic)
            state.chats[id] = changed
            return RoomChange(chat: changed, notices: notices)
        }
    }

    public func setInvolvement(_ involvement: Involvement, in chat: ChatID, for user: UserID) async throws -> Membership {
        try state.withLock { state throws(Refusal) in
            guard let stored = state.chats[chat], stored.hasMember(user) else { throw .notFound }
            let key = ChatKey(chat: chat, user: user)
            state.involvement[key] = involvement
            return Membership(
                chatID: chat, userID: user, lastRead: state.lastRead[key], involvement: involvement, joinedAt: state.joinedAt[key] ?? stored.createdAt
            )
        }
    }

    public func readers(of chat: ChatID) async throws -> [Reader] {
        state.withLock { state in
            (state.chats[chat]?.members ?? []).compactMap { member in
                let key = ChatKey(chat: chat, user: member)
                let joinedAfter = state.joinedAfter[key] ?? MessageID(0)
                guard let user = state.users[member], let mark = state.lastRead[key], mark > joinedAfter else { return nil }
                return Reader(user: user, lastRead: mark, joinedAfter: joinedAfter)
            }
        }
    }

    public func members(of chat: ChatID, viewer: UserID) async throws -> [User]? {
        state.withLock { state in
            guard let stored = state.chats[chat], stored.hasMember(viewer) else { return nil }
            return stored.members.compactMap { state.users[$0] }.sorted { ($0.displayName.lowercased(), $0.handle) < ($1.displayName.lowercased(), $1.handle) }
        }
    }

    public func sharingAChat(with viewer: UserID, among people: Set<UserID>) async throws -> Set<UserID> {
        state.withLock { state in
            var found: Set<UserID> = []
            for chat in state.chats.values where chat.hasMember(viewer) { found.formUnion(people.intersection(chat.members)) }
            return found
        }
    }

    /// The chat, when `by` is a member and it is of one of `kinds` (else `otherwise`).
    private static func room(_ id: ChatID, by: UserID, in state: State, kinds: Set<RoomKind>, otherwise: Refusal) throws(Refusal) -> Chat {
        guard let chat = state.chats[id], chat.hasMember(by) else { throw .notFound }
        guard kinds.contains(chat.kind) else { throw otherwise }
        return chat
    }

    /// A line about the room, stored as the newest message of the chat.
    private static func notice(_ notice: RoomNotice, in chat: ChatID, by: UserID, at date: Date, state: inout State) -> Message {
        let message = Message(id: MessageID(state.nextMessage), chatID: chat, senderID: by, body: "", createdAt: date, notice: notice)
        state.nextMessage += 1
        state.messages[message.id] = message
        state.messageIDsByChat[chat, default: []].append(message.id)
        state.messageIDsByToken["\(by):notice-\(message.id)"] = message.id
        state.lastActivity[chat] = max(state.lastActivity[chat] ?? date, date)
        return message
    }

    public func chatList(for viewer: UserID) async throws -> [ChatSummary] {
        state.withLock { state in
            (state.chatIDsByUser[viewer] ?? [])
                .compactMap { Self.summary($0, for: viewer, in: state) }
                .newestActivityFirst()
        }
    }

    public func chatSummary(_ chat: ChatID, for viewer: UserID) async throws -> ChatSummary? {
        state.withLock { Self.summary(chat, for: viewer, in: $0) }
    }

    public func unreadTotal(for viewer: UserID) async throws -> Int {
        state.withLock { state in
            (state.chatIDsByUser[viewer] ?? []).reduce(0) { $0 + (Self.summary($1, for: viewer, in: state)?.badgeCount ?? 0) }
        }
    }

    public func send(_ message: OutgoingMessage) async throws -> Message {
        try state.withLock { state throws(Refusal) in
            let tokenKey = "\(message.senderID):\(message.token)"
            if let existing = state.messageIDsByToken[tokenKey], let stored = state.messages[existing] { return stored }
            guard let chat = state.chats[message.chatID], chat.hasMember(message.senderID) else { throw .notFound }
            if let replyTo = message.replyTo, state.messages[replyTo]?.chatID != message.chatID { throw .notFound }
            let id = MessageID(state.nextMessage)
            var photo: MessagePhoto?
            if let new = message.photo {
                let imageID = ImageID(state.nextImage)
                state.nextImage += 1
                state.images[imageID] = StoredImage(
                    id: imageID, ownerID: message.senderID, purpose: .message, versions: [], state: .pending, messageID: id
                )
                state.originals[imageID] = new.original
                photo = MessagePhoto(id: imageID, state: .pending, width: new.width, height: new.height)
            }
            let stored = Message(
                id: id, chatID: message.chatID, senderID: message.senderID, body: message.body,
                createdAt: message.createdAt, replyTo: message.replyTo, photo: photo
            )
            state.nextMessage += 1
            state.messages[stored.id] = stored
            state.messageIDsByChat[message.chatID, default: []].append(stored.id)
            state.messageIDsByToken[tokenKey] = stored.id
            state.lastActivity[message.chatID] = max(state.lastActivity[message.chatID] ?? message.createdAt, message.createdAt)
            return stored
        }
    }

    /// The message, when `person` sent it; as ``SQLiteChatStore``'s, the same refusal for a chat they are
    /// not in as for no message at all.
    private static func ownMessage(_ state: State, _ id: MessageID, of person: UserID) throws(Refusal) -> Message {
        guard let message = state.messages[id], state.chats[message.chatID]?.hasMember(person) == true else { throw .notFound }
        guard message.senderID == person, message.notice == nil else { throw .notYourMessage }
        return message
    }

    public func edit(_ edit: MessageEdit) async throws -> Message {
        try state.withLock { state throws(Refusal) in
            let old = try Self.ownMessage(state, edit.messageID, of: edit.editorID)
            guard !old.isDeleted else { throw .messageDeleted }
            let edited = Message(
                id: old.id, chatID: old.chatID, senderID: old.senderID, body: edit.body, createdAt: old.createdAt,
                editedAt: edit.editedAt, replyTo: old.replyTo, photo: old.photo,
                // A new text's link is read again; a card the sender removed stays removed.
                preview: old.preview?.isRemoved == true ? old.preview : nil
            )
            state.messages[old.id] = edited
            Self.dropCardPicture(&state, of: old)
            return edited
        }
    }

    public func recordPreview(_ result: PreviewResult) async throws -> Message? {
        state.withLock { state in
            guard let message = state.messages[result.messageID], !message.isDeleted, message.preview == nil,
                  message.body.contains(result.preview.url)
            else { return nil }
            var picture: PreviewImage?
            if !result.image.isEmpty {
                let id = ImageID(state.nextImage)
                state.nextImage += 1
                state.images[id] = StoredImage(id: id, ownerID: message.senderID, purpose: .linkPreview, versions: result.image)
                picture = result.picture(id)
            }
            let previewed = message.with(preview: result.preview.with(image: picture))
            state.messages[message.id] = previewed
            return previewed
        }
    }

    /// The picture of the card `old` had goes with its card.
    private static func dropCardPicture(_ state: inout State, of old: Message) {
        if let picture = old.preview?.image { state.images[picture.id] = nil }
    }

    public func removePreview(_ removal: PreviewRemoval) async throws -> Message {
        try state.withLock { state throws(Refusal) in
            guard let message = state.messages[removal.messageID], let preview = message.preview, !preview.isRemoved else { throw .notFound }
            guard message.senderID == removal.requesterID else { throw .notYourMessage }
            let removed = message.with(preview: .removed)
            state.messages[message.id] = removed
            Self.dropCardPicture(&state, of: message)
            return removed
        }
    }

    public func delete(_ deletion: MessageDeletion) async throws -> DeletedMessage {
        try state.withLock { state throws(Refusal) in
            let old = try Self.ownMessage(state, deletion.messageID, of: deletion.requesterID)
            guard !old.isDeleted else { return DeletedMessage(message: old, deletedNow: false) }
            if let photo = old.photo {
                state.images[photo.id] = nil
                state.originals[photo.id] = nil
            }
            Self.dropCardPicture(&state, of: old)
            let deleted = old.deleted(at: deletion.deletedAt)
            state.messages[old.id] = deleted
            state.reactions.removeAll { $0.messageID == old.id }
            return DeletedMessage(message: deleted, deletedNow: true)
        }
    }

    public func message(_ id: MessageID) async throws -> Message? { state.withLock { $0.messages[id] } }

    public func toggleReaction(_ toggle: ReactionToggle) async throws -> MessageReactions {
        try state.withLock { state throws(Refusal) in
            guard let message = state.messages[toggle.messageID], !message.isDeleted, message.notice == nil,
                  state.chats[message.chatID]?.hasMember(toggle.userID) == true
            else { throw .notFound }
            let given = { (row: StoredReaction) in row.messageID == message.id && row.userID == toggle.userID && row.text == toggle.text }
            if state.reactions.contains(where: given) {
                state.reactions.removeAll(where: given)
            } else {
                let kinds = Set(state.reactions.lazy.filter { $0.messageID == message.id }.map(\.text))
                guard kinds.contains(toggle.text) || kinds.count < ReactionText.kindsPerMessage else {
                    throw .tooManyReactions(limit: ReactionText.kindsPerMessage)
                }
                state.reactions.append(StoredReaction(messageID: message.id, userID: toggle.userID, text: toggle.text, at: toggle.at, name: ""))
            }
            let counts = Self.reactions(state, to: [message.id])[message.id] ?? []
            return MessageReactions(messageID: message.id, chatID: message.chatID, counts: counts)
        }
    }

    public func reactions(to messages: [MessageID]) async throws -> [MessageID: [ReactionCount]] {
        state.withLock { state in Self.reactions(state, to: messages) }
    }

    /// The reactions to `messages`, with each person's name as it is now.
    private static func reactions(_ state: State, to messages: [MessageID]) -> [MessageID: [ReactionCount]] {
        let wanted = Set(messages)
        return StoredReaction.counts(state.reactions.filter { wanted.contains($0.messageID) }.map { row in
            StoredReaction(messageID: row.messageID, userID: row.userID, text: row.text, at: row.at, name: state.users[row.userID]?.displayName ?? "")
        })
    }

    public func messages(in chat: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage {
        state.withLock { state in
            let ids = state.messageIDsByChat[chat] ?? []
            let end = before.map { cut in ids.firstIndex { $0 >= cut } ?? ids.count } ?? ids.count
            let start = max(0, end - limit)
            return MessagePage(messages: ids[start..<end].compactMap { state.messages[$0] }, hasOlder: start > 0)
        }
    }

    public func messages(in chat: ChatID, after: MessageID, limit: Int) async throws -> MessagePage {
        state.withLock { state in
            let ids = state.messageIDsByChat[chat] ?? []
            let start = ids.firstIndex { $0 > after } ?? ids.count
            let end = min(ids.count, start + max(0, limit))
            return MessagePage(messages: ids[start..<end].compactMap { state.messages[$0] }, hasOlder: start > 0, hasNewer: end < ids.count)
        }
    }

    public func markRead(_ report: ReadReport) async throws -> MessageID? {
        try state.withLock { state throws(Refusal) in
            guard let chat = state.chats[report.chatID], chat.hasMember(report.readerID) else { throw .notFound }
            let key = ChatKey(chat: report.chatID, user: report.readerID)
            let ids = state.messageIDsByChat[report.chatID] ?? []
            let target = report.upTo.map { upTo in ids.last { $0 <= upTo } } ?? ids.last
            guard let target else { return state.lastRead[key] }
            let mark = max(state.lastRead[key] ?? target, target)
            state.lastRead[key] = mark
            return mark
        }
    }

    public func membership(_ chat: ChatID, _ user: UserID) async throws -> Membership? {
        state.withLock { state in
            guard state.chats[chat]?.hasMember(user) == true else { return nil }
            guard let stored = state.chats[chat] else { return nil }
            let key = ChatKey(chat: chat, user: user)
            return Membership(
                chatID: chat, userID: user, lastRead: state.lastRead[key], involvement: state.involvement[key] ?? .joining(stored.kind),
                joinedAt: state.joinedAt[key] ?? stored.createdAt
            )
        }
    }

    private static func summary(_ id: ChatID, for viewer: UserID, in state: State) -> ChatSummary? {
        guard let chat = state.chats[id], chat.hasMember(viewer) else { return nil }
        let contact = chat.contact(of: viewer).flatMap { state.users[$0] }
        if chat.contact(of: viewer) != nil, contact == nil { return nil }
        let last = state.messageIDsByChat[id]?.last.flatMap { state.messages[$0] }
        let key = ChatKey(chat: id, user: viewer)
        return ChatSummary(
            chatID: id, heading: chat.heading(contact: contact, others: others(in: chat, for: viewer, state)), lastMessage: last,
            lastSenderName: last.flatMap { state.users[$0.senderID]?.displayName }, unreadCount: unread(id, for: viewer, in: state),
            lastActivity: state.lastActivity[id] ?? chat.createdAt, lastRead: state.lastRead[key],
            involvement: state.involvement[key] ?? .joining(chat.kind), mentionCount: unread(id, for: viewer, in: state, mentionsOnly: true)
        )
    }

    /// Unread messages (those naming the viewer, with `mentionsOnly`).
    private static func unread(_ chat: ChatID, for viewer: UserID, in state: State, mentionsOnly: Bool = false) -> Int {
        let mark = state.lastRead[ChatKey(chat: chat, user: viewer)] ?? MessageID(0)
        let handle = state.users[viewer]?.handle ?? ""
        let ids = state.messageIDsByChat[chat] ?? []
        var count = 0
        for id in ids.reversed() {
            guard id > mark else { break }
            // A deleted message is nothing left to read.
            if let message = state.messages[id], message.isUnread(for: viewer), !mentionsOnly || message.named.names(handle) { count += 1 }
        }
        return count
    }

    // MARK: Accounts

    public func credential(handle: String) async throws -> Credential? {
        state.withLock { state in
            guard let id = state.userIDsByHandle[handle.lowercased()], let user = state.users[id],
                  let hash = state.passwordHashes[id]
            else { return nil }
            return Credential(user: user, passwordHash: hash, isDeactivated: state.deactivatedAt[id] != nil)
        }
    }

    public func createSession(_ session: StoredSession) async throws {
        state.withLock { $0.sessions[session.idHash] = session }
    }

    public func session(idHash: String, now: Date) async throws -> StoredSession? {
        state.withLock { state in state.sessions[idHash].flatMap { $0.expiresAt > now ? $0 : nil } }
    }

    public func liveSession(idHash: String, now: Date) async throws -> LiveSession? {
        state.withLock { state in
            guard let session = state.sessions[idHash], session.expiresAt > now, let user = state.users[session.userID],
                  state.deactivatedAt[user.id] == nil
            else { return nil }
            return LiveSession(session: session, user: user)
        }
    }

    public func changePassword(of user: UserID, to passwordHash: String, keeping idHash: String) async throws -> Int {
        try state.withLock { state throws(Refusal) in
            guard state.passwordHashes[user] != nil else { throw .notFound }
            state.passwordHashes[user] = passwordHash
            let others = state.sessions.values.filter { $0.userID == user && $0.idHash != idHash }
            for session in others { state.sessions[session.idHash] = nil }
            return others.count
        }
    }

    public func deleteSession(idHash: String) async throws -> UserID? {
        state.withLock { $0.sessions.removeValue(forKey: idHash)?.userID }
    }

    public func endSessions(of user: UserID, keeping idHash: String?) async throws -> Int {
        state.withLock { state in
            let ended = state.sessions.values.filter { $0.userID == user && $0.idHash != idHash }
            for session in ended { state.sessions[session.idHash] = nil }
            return ended.count
        }
    }

    public func liveSessions(among idHashes: [String], now: Date) async throws -> Set<String> {
        state.withLock { state in
            Set(idHashes.filter { hash in
                guard let session = state.sessions[hash], session.expiresAt > now else { return false }
                return state.users[session.userID] != nil && state.deactivatedAt[session.userID] == nil
            })
        }
    }
}
