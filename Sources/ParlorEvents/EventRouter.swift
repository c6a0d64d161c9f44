import Foundation
import Logging
import ParlorDomain
import Synchronization

/// The single entry point of every change, whatever its source: a form POST, the chatbot, a feed.
/// It validates, writes through the store, publishes the stored event on the bus (the live pages take it
/// from there; nobody waits for them), then tells the observers. It answers with the event that says how
/// it ended. Nothing else writes.
public final class EventRouter: EventSink {
    let store: any ChatStore
    private let feeds: (any FeedStore)?
    /// Roles and the Parlor's settings: who may create rooms, who may deactivate whom.
    let administration: (any AdministrationStore)?
    /// Password hashes and sessions; nil where nobody signs in (account commands are then `unavailable`).
    let accounts: (any AccountStore)?
    /// Push subscriptions and notification preferences.
    let push: (any PushStore)?
    private let bus: any EventBus
    private let clock: any WallClock
    private let logger: Logger
    private let observers = Mutex<[any EventObserver]>([])
    private let refusalObservers = Mutex<[@Sendable (Refusal) -> Void]>([])
    private let storeTimers = Mutex<[@Sendable (String, Duration) -> Void]>([])
    /// What changed, counted as each event is stored: pages kept between requests are checked against it.
    public let changes: ChangeCounters
    /// When each person last started typing in each chat.
    let typingStarts = TypingThrottle()

    public init(
        store: any ChatStore, feeds: (any FeedStore)? = nil, administration: (any AdministrationStore)? = nil, accounts: (any AccountStore)? = nil,
        push: (any PushStore)? = nil, bus: any EventBus, clock: any WallClock, changes: ChangeCounters = ChangeCounters(),
        logger: Logger = Logger(label: "parlor.events")
    ) {
        self.store = store
        self.accounts = accounts
        self.push = push
        self.feeds = feeds
        self.administration = administration
        self.bus = bus
        self.clock = clock
        self.changes = changes
        self.logger = logger
    }

    /// Adds a source that reacts to events (it may send events back).
    public func addObserver(_ observer: any EventObserver) {
        observers.withLock { $0.append(observer) }
    }

    /// Adds a function told of every refusal, whatever event it answered (metrics).
    public func addRefusalObserver(_ observer: @escaping @Sendable (Refusal) -> Void) {
        refusalObservers.withLock { $0.append(observer) }
    }

    /// Adds a function told how long each write through the store took, by operation ("send", "edit"…).
    public func addStoreTimer(_ timer: @escaping @Sendable (String, Duration) -> Void) {
        storeTimers.withLock { $0.append(timer) }
    }

    /// Runs one store operation, and tells the store timers how long it took, whether it succeeded or not.
    /// Every write of the router's goes through here: the store can tell it from one that went around the router
    /// (``RouterCommand``).
    func timed<Result>(_ operation: String, _ body: () async throws -> Result) async throws -> Result {
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            for timer in storeTimers.withLock({ $0 }) { timer(operation, elapsed) }
        }
        return try await RouterCommand.$current.withValue(operation) { try await body() }
    }

    /// Applies an event and answers how it ended.
    /// `requestID` names the request that caused the event in the log lines it may lead to.
    @discardableResult
    public func send(_ event: DomainEvent, requestID: String? = nil) async -> DomainEvent {
        switch event {
        case .message(let event): .message(await send(event, requestID: requestID))
        case .chat(let event): .chat(await send(event, requestID: requestID))
        case .user(let event): .user(await send(event, requestID: requestID))
        case .feed(let event): .feed(await send(event, requestID: requestID))
        case .presence(let event): .presence(await send(event, requestID: requestID))
        case .account(let event): .account(await send(event, requestID: requestID))
        }
    }

    /// `sending` answers `sent` or `failedSending`; `editing` answers `edited` or `failedEditing`; `deleting`
    /// answers `deleted` or `failedDeleting`;
    /// `userReads` answers `userRead`, or itself when the read mark did not move.
    @discardableResult
    public func send(_ event: MessageEvent, requestID: String? = nil) async -> MessageEvent {
        switch event {
        case .sending(let outgoing): return await sendMessage(outgoing, requestID)
        case .editing(let edit): return await editMessage(edit, requestID)
        case .deleting(let deletion): return await deleteMessage(deletion, requestID)
        case .userReads(let report): return await markRead(report, requestID)
        case .processingPhoto(let result): return await finishPhoto(result, requestID)
        case .reacting(let toggle): return await react(toggle, requestID)
        case .previewing(let result):
            do {
                guard result.preview.url.utf8.count <= LinkPreview.urlLimit, !result.preview.title.isEmpty,
                      let message = try await timed("record_preview", { try await store.recordPreview(result) })
                else { return event }
                return await publish(.message(.previewed(message)), .previewed(message), requestID)
            } catch {
                _ = refusal(error, "message.previewing", requestID)
                return event
            }
        case .removingPreview(let removal):
            do {
                let message = try await timed("remove_preview") { try await store.removePreview(removal) }
                return await publish(.message(.previewed(message)), .previewed(message), requestID)
            } catch {
                return .failedRemovingPreview(removal, reason: refusal(error, "message.removingPreview", requestID))
            }
        case .sent, .failedSending, .edited, .failedEditing, .deleted, .failedDeleting, .userRead, .photoProcessed, .reacted, .failedReacting,
             .previewed, .failedRemovingPreview:
            return event
        }
    }

    @discardableResult
    public func send(_ event: ChatEvent, requestID: String? = nil) async -> ChatEvent {
        switch event {
        case .creating(let creator, let handle):
            do {
                let contact = try await person(handle)
                guard contact.id != creator else { throw Refusal.chatWithYourself }
                let chat = try await timed("create_chat") { try await store.createChat(between: creator, and: contact.id, at: clock.now) }
                return await publish(.chat(.created(chat)), ChatEvent.created(chat), requestID)
            } catch {
                return .createFailed(creator: creator, reason: refusal(error, "chat.creating", requestID))
            }
        case .creatingDirect(let creator, let handles):
            guard handles.count > 1 else { return await send(.creating(creator: creator, contactHandle: handles.first ?? ""), requestID: requestID) }
            do {
                var people: [UserID] = [creator]
                for handle in handles { people.append(try await person(handle).id) }
                guard Set(people).count > 1 else { throw Refusal.chatWithYourself }
                let others = Set(people).subtracting([creator])
                let chat = try await timed("create_chat") {
                    // Two handles naming one other person (or the creator): a chat of two after all.
                    if others.count == 1, let contact = others.first {
                        return try await store.createChat(between: creator, and: contact, at: clock.now)
                    }
                    return try await store.createDirectChat(among: people, at: clock.now)
                }
                return await publish(.chat(.created(chat)), ChatEvent.created(chat), requestID)
            } catch {
                return .createFailed(creator: creator, reason: refusal(error, "chat.creatingDirect", requestID))
            }
        case .creatingRoom(let request):
            do {
                guard request.kind != .direct else { throw Refusal.notFound }
                if let administration, try await administration.settings().onlyAdministratorsCreateRooms,
                   try await administration.account(request.creator)?.isActiveAdministrator != true
                {
                    throw Refusal.administratorsOnly
                }
                let name = try RoomName.validated(request.name)
                let topic = try RoomTopic.validated(request.topic)
                var members: [UserID] = []
                if request.kind == .closed {
                    for handle in request.memberHandles { members.append(try await person(handle).id) }
                }
                let room = NewRoom(creator: request.creator, kind: request.kind, name: name, topic: topic, members: members, createdAt: clock.now)
                let chat = try await timed("create_room") { try await store.createRoom(room) }
                return await publish(.chat(.created(chat)), ChatEvent.created(chat), requestID)
            } catch {
                return .createFailed(creator: request.creator, reason: refusal(error, "chat.creatingRoom", requestID))
            }
        case .changingMembers(let change):
            do {
                var people: [UserID] = []
                for handle in change.adding { people.append(try await person(handle).id) }
                let stored = try await timed("change_members") {
                    if let removing = change.removing {
                        return try await store.removeMember(removing, from: change.chatID, by: change.by, at: clock.now)
                    }
                    return try await store.addMembers(people, to: change.chatID, by: change.by, at: clock.now)
                }
                // Nobody new (all of them were in already): nothing changed, nothing to tell.
                guard !stored.added.isEmpty || !stored.removed.isEmpty else { return .membersChanged(stored) }
                return await publish(.membersChanged(stored), stored, requestID)
            } catch {
                return .memberChangeFailed(change, reason: refusal(error, "chat.changingMembers", requestID))
            }
        case .renamingRoom(let rename):
            do {
                let name = try RoomName.validated(rename.name)
                let topic = try RoomTopic.validated(rename.topic)
                let stored = try await timed("rename_room") {
                    try await store.renameRoom(rename.chatID, name: name, topic: topic, by: rename.by, at: clock.now)
                }
                guard !stored.notices.isEmpty else { return .roomRenamed(stored) }
                return await publish(.roomRenamed(stored), stored, requestID)
            } catch {
                return .renameFailed(rename, reason: refusal(error, "chat.renamingRoom", requestID))
            }
        case .changingInvolvement(let chat, let member, let involvement):
            do {
                let membership = try await timed("set_involvement") { try await store.setInvolvement(involvement, in: chat, for: member) }
                return await publish(.chat(.involvementChanged(membership)), ChatEvent.involvementChanged(membership), requestID)
            } catch {
                _ = refusal(error, "chat.changingInvolvement", requestID)
                return event
            }
        case .created, .createFailed, .membersChanged, .memberChangeFailed, .roomRenamed, .renameFailed, .involvementChanged:
            return event
        }
    }

    /// Publishes a stored change to a room, then the lines its conversation shows for it, as messages sent.
    private func publish(_ change: ChatEvent, _ stored: RoomChange, _ requestID: String?) async -> ChatEvent {
        _ = await publish(.chat(change), (), requestID)
        for notice in stored.notices {
            _ = await publish(.message(.sent(notice, token: "notice-\(notice.id)")), (), requestID)
        }
        return change
    }

    /// The person with the handle someone typed ("@ana" or "ana"); `unknownHandle` for nobody.
    private func person(_ handle: String) async throws -> User {
        // A malformed handle names nobody: stored handles are all normalised.
        guard let normalized = try? Handle.normalized(handle), let person = try await store.user(handle: normalized) else {
            throw Refusal.unknownHandle(handle.hasPrefix("@") ? String(handle.dropFirst()) : handle)
        }
        return person
    }

    /// The room a new Parlor starts with, made for its first person: open (everyone who signs up joins it),
    /// called "General". Nothing when an open room exists already.
    public static let firstRoomName = "General"

    @discardableResult
    public func send(_ event: UserEvent, requestID: String? = nil) async -> UserEvent {
        switch event {
        case .signingUp(let new):
            do {
                let handle = try Handle.normalized(new.handle)
                guard !Handle.reserved.contains(handle) else { throw Refusal.handleTaken(handle) }
                let valid = NewUser(
                    handle: handle,
                    displayName: try DisplayName.validated(new.displayName),
                    timeZoneIdentifier: Self.timeZone(new.timeZoneIdentifier) ?? "UTC",
                    localeIdentifier: StoredText.identifier(new.localeIdentifier) ?? "en_US",
                    isBot: new.isBot,
                    passwordHash: new.passwordHash,
                    joinCode: new.joinCode,
                    bot: try new.bot.map { bot throws(Refusal) in
                        BotCredential(keyHash: bot.keyHash, webhookURL: try bot.webhookURL.map { url throws(Refusal) in try WebhookAddress.validated(url) })
                    }
                )
                let user = try await timed("create_user") { try await store.createUser(valid, at: clock.now) }
                let signedUp = await publish(.user(.signedUp(user)), UserEvent.signedUp(user), requestID)
                if !user.isBot { await openFirstRoom(for: user, requestID) }
                return signedUp
            } catch {
                return .signUpFailed(handle: new.handle, reason: refusal(error, "user.signingUp", requestID))
            }
        case .updatingProfile(let change):
            do {
                let valid = ProfileChange(
                    userID: change.userID,
                    displayName: try change.displayName.map { name throws(Refusal) in try DisplayName.validated(name) },
                    timeZoneIdentifier: change.timeZoneIdentifier.flatMap(Self.timeZone),
                    localeIdentifier: change.localeIdentifier.flatMap(StoredText.identifier),
                    avatar: change.avatar.map { avatar in
                        NewImage(ownerID: change.userID, purpose: .avatar, versions: avatar.versions, createdAt: avatar.createdAt)
                    },
                    removesAvatar: change.removesAvatar && change.avatar == nil
                )
                let user = try await timed("update_profile") { try await store.updateProfile(valid) }
                return await publish(.user(.profileUpdated(user)), .profileUpdated(user), requestID)
            } catch {
                return .profileUpdateFailed(change, reason: refusal(error, "user.updatingProfile", requestID))
            }
        case .changingAccount(let change):
            do {
                guard let administration else { throw Refusal.unavailable }
                guard try await administration.account(change.by)?.isActiveAdministrator == true else { throw Refusal.administratorsOnly }
                guard change.person != change.by else { throw Refusal.deactivatingYourself }
                let state = try await timed("change_account") {
                    change.deactivating
                        ? try await administration.deactivate(change.person, at: clock.now)
                        : try await administration.reactivate(change.person, at: clock.now)
                }
                return await publish(.user(.accountChanged(state)), .accountChanged(state), requestID)
            } catch {
                return .accountChangeFailed(change, reason: refusal(error, "user.changingAccount", requestID))
            }
        case .signedUp, .signUpFailed, .profileUpdated, .profileUpdateFailed, .accountChanged, .accountChangeFailed:
            return event
        }
    }

    /// The most members `@everyone` and `@here` may call.
    public static let everyoneLimit = 500

    /// The most feeds one chat follows.
    public static let feedsPerChat = 20

    /// `subscribing` answers `subscribed` or `subscribeFailed`; `unsubscribing` and `retrying` answer
    /// `unsubscribed` and `retried` or `requestFailed`; `checking` answers `checked`, or itself when the
    /// subscription went meanwhile. A check's new items are published as `message.sent` first, in order.
    @discardableResult
    public func send(_ event: FeedEvent, requestID: String? = nil) async -> FeedEvent {
        guard let feeds else {
            switch event {
            case .subscribing(let new): return .subscribeFailed(new, reason: .unavailable)
            case .unsubscribing(let request), .retrying(let request): return .requestFailed(request, reason: .unavailable)
            default: return event
            }
        }
        switch event {
        case .subscribing(let new):
            do {
                let valid = NewSubscription(chatID: new.chatID, subscriberID: new.subscriberID, url: try FeedAddress.validated(new.url), createdAt: new.createdAt)
                let subscription = try await timed("subscribe_feed") { try await feeds.subscribe(valid, limit: Self.feedsPerChat) }
                return await publish(.feed(.subscribed(subscription)), .subscribed(subscription), requestID)
            } catch {
                return .subscribeFailed(new, reason: refusal(error, "feed.subscribing", requestID))
            }
        case .unsubscribing(let request):
            return await apply(request, "unsubscribe_feed", requestID, feeds.unsubscribe, FeedEvent.unsubscribed)
        case .retrying(let request):
            return await apply(request, "retry_feed", requestID, feeds.retry, FeedEvent.retried)
        case .checking(let check):
            do {
                guard let checked = try await timed("record_feed_check", { try await feeds.recordCheck(check) }) else { return event }
                // A page naming a feed the chat follows already: its row goes, as an unfollow would take it.
                if checked.duplicateOf != nil {
                    return await publish(.feed(.unsubscribed(checked.subscription)), .unsubscribed(checked.subscription), requestID)
                }
                for message in checked.posted {
                    _ = await publish(.message(.sent(message, token: "feed-\(message.id)")), (), requestID)
                }
                return await publish(.feed(.checked(checked.subscription)), .checked(checked.subscription), requestID)
            } catch {
                logger.error("feed check not stored", metadata: ["subscription": "\(check.subscriptionID)", "error": "\(error)"])
                return event
            }
        case .subscribed, .subscribeFailed, .unsubscribed, .retried, .requestFailed, .checked:
            return event
        }
    }

    /// A member's request about a subscription, stored by `change` and published as `ended`.
    private func apply(
        _ request: FeedRequest, _ operation: String, _ requestID: String?, _ change: (FeedRequest) async throws -> FeedSubscription,
        _ ended: (FeedSubscription) -> FeedEvent
    ) async -> FeedEvent {
        do {
            let subscription = try await timed(operation) { try await change(request) }
            return await publish(.feed(ended(subscription)), ended(subscription), requestID)
        } catch {
            return .requestFailed(request, reason: refusal(error, "feed." + operation, requestID))
        }
    }

    private func sendMessage(_ outgoing: OutgoingMessage, _ requestID: String?) async -> MessageEvent {
        let valid: OutgoingMessage
        do {
            // Refused before anything is shown or stored: the form says why, the page stays as it was.
            // Membership and the quoted message are checked by the store, in the transaction that stores
            // the message; before that, "Sending" reaches only pages of members (a page opens only its
            // viewer's chats), so a stranger's attempt shows nowhere and stores nothing.
            let body = try MessageText.validated(outgoing.body, allowingEmpty: outgoing.photo != nil)
            // Everyone in a very large room is not to be called at once.
            if NamedPeople(in: body).everyone, let count = try await store.memberCount(of: outgoing.chatID), count > Self.everyoneLimit {
                throw Refusal.tooManyToMention(limit: Self.everyoneLimit)
            }
            valid = OutgoingMessage(
                chatID: outgoing.chatID, senderID: outgoing.senderID, body: body, replyTo: outgoing.replyTo,
                token: outgoing.token, createdAt: outgoing.createdAt, photo: outgoing.photo
            )
        } catch {
            return .failedSending(outgoing, reason: refusal(error, "message.sending", requestID))
        }
        bus.publish(PublishedEvent(.message(.sending(valid)), requestID: requestID))
        do {
            let message = try await timed("send") { try await store.send(valid) }
            // The message ends its sender's "is typing" (the pages hide it); the next keystroke starts anew.
            typingStarts.forget(valid.senderID, in: valid.chatID)
            return await publish(.message(.sent(message, token: valid.token)), .sent(message, token: valid.token), requestID)
        } catch {
            let failed = MessageEvent.failedSending(valid, reason: refusal(error, "message.sending", requestID))
            return await publish(.message(failed), failed, requestID)
        }
    }

    /// A photo's versions or its failure, stored and shown; a photo whose message went meanwhile changes nothing.
    private func finishPhoto(_ result: PhotoResult, _ requestID: String?) async -> MessageEvent {
        do {
            guard let message = try await timed("finish_photo", { try await store.finishPhoto(result) }) else { return .processingPhoto(result) }
            return await publish(.message(.photoProcessed(message)), .photoProcessed(message), requestID)
        } catch {
            logger.error("photo state not stored", metadata: ["image": "\(result.imageID)", "error": "\(error)"])
            return .processingPhoto(result)
        }
    }

    private func editMessage(_ edit: MessageEdit, _ requestID: String?) async -> MessageEvent {
        do {
            let body = try MessageText.validated(edit.body)
            let message = try await timed("edit") {
                try await store.edit(MessageEdit(messageID: edit.messageID, editorID: edit.editorID, body: body, editedAt: edit.editedAt))
            }
            return await publish(.message(.edited(message)), .edited(message), requestID)
        } catch {
            return .failedEditing(edit, reason: refusal(error, "message.editing", requestID))
        }
    }

    private func react(_ toggle: ReactionToggle, _ requestID: String?) async -> MessageEvent {
        do {
            let text = try ReactionText.validated(toggle.text)
            let reactions = try await timed("react") {
                try await store.toggleReaction(ReactionToggle(messageID: toggle.messageID, userID: toggle.userID, text: text, at: toggle.at))
            }
            return await publish(.message(.reacted(reactions)), .reacted(reactions), requestID)
        } catch {
            return .failedReacting(toggle, reason: refusal(error, "message.reacting", requestID))
        }
    }

    private func deleteMessage(_ deletion: MessageDeletion, _ requestID: String?) async -> MessageEvent {
        do {
            let deleted = try await timed("delete") { try await store.delete(deletion) }
            // Deleted before (a second click): nothing changed, nothing to tell.
            guard deleted.deletedNow else { return .deleted(deleted.message) }
            return await publish(.message(.deleted(deleted.message)), .deleted(deleted.message), requestID)
        } catch {
            return .failedDeleting(deletion, reason: refusal(error, "message.deleting", requestID))
        }
    }

    private func markRead(_ report: ReadReport, _ requestID: String?) async -> MessageEvent {
        do {
            let previous = try await store.membership(report.chatID, report.readerID)?.lastRead
            guard let mark = try await timed("mark_read", { try await store.markRead(report) }), mark != previous else { return .userReads(report) }
            let read = MessageEvent.userRead(chat: report.chatID, reader: report.readerID, previous: previous, upTo: mark)
            return await publish(.message(read), read, requestID)
        } catch {
            _ = refusal(error, "message.userReads", requestID)
            return .userReads(report)
        }
    }

    /// Counts the change, publishes on the bus, then tells the observers; answers `result`.
    /// Publishes what is not stored (someone typing): no change to count.
    func publishPresence<Result>(_ event: DomainEvent, _ result: Result, _ requestID: String?) async -> Result {
        bus.publish(PublishedEvent(event, requestID: requestID))
        for observer in observers.withLock({ $0 }) { observer.observe(event, router: self) }
        return result
    }

    func publish<Result>(_ event: DomainEvent, _ result: Result, _ requestID: String?) async -> Result {
        changes.note(event)
        bus.publish(PublishedEvent(event, requestID: requestID))
        for observer in observers.withLock({ $0 }) { observer.observe(event, router: self) }
        return result
    }

    /// The first person on a new Parlor gets its first room (with whoever else is here: Parlor Bot). A failure
    /// is logged and tried again at the next sign-up: the account is made either way.
    private func openFirstRoom(for person: User, _ requestID: String?) async {
        do {
            let room = NewRoom(creator: person.id, kind: .open, name: Self.firstRoomName, topic: nil, createdAt: clock.now)
            guard let chat = try await timed("create_room", { try await store.createFirstRoom(room) }) else { return }
            _ = await publish(.chat(.created(chat)), (), requestID)
        } catch {
            _ = refusal(error, "chat.creatingRoom", requestID)
        }
    }

    /// `identifier` when it names a time zone Foundation knows (and is plain ASCII: no NUL cuts it short).
    static func timeZone(_ identifier: String) -> String? {
        StoredText.identifier(identifier).flatMap { TimeZone(identifier: $0) == nil ? nil : $0 }
    }

    /// A refusal as is; any other failure (the disk) as "try again", with no internals for the person and
    /// its cause in the log, with the event's kind and the request that caused it.
    func refusal(_ error: any Error, _ kind: String, _ requestID: String?) -> Refusal {
        let refusal: Refusal
        if let known = error as? Refusal {
            refusal = known
        } else {
            logger.error("the store could not apply an event", metadata: [
                "event": "\(kind)", "request": "\(requestID ?? "-")", "error": "\(String(describing: error))",
            ])
            refusal = .unavailable
        }
        for observer in refusalObservers.withLock({ $0 }) { observer(refusal) }
        return refusal
    }
}
