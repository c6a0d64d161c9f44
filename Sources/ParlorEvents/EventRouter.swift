import Foundation
import ParlorDomain
import Synchronization

/// The single entry point of every change, whatever its source: a form POST, the chatbot, a feed.
/// It validates, writes through the store, tells the event handler (which updates the open pages),
/// then tells the observers. It answers with the event that says how it ended. Nothing else writes.
public final class EventRouter: Sendable {
    private let store: any ChatStore
    private let handler: EventHandler
    private let clock: any WallClock
    private let observers = Mutex<[any EventObserver]>([])

    public init(store: any ChatStore, handler: EventHandler, clock: any WallClock) {
        self.store = store
        self.handler = handler
        self.clock = clock
    }

    /// Adds a source that reacts to events (it may send events back).
    public func addObserver(_ observer: any EventObserver) {
        observers.withLock { $0.append(observer) }
    }

    /// Applies an event and answers how it ended.
    @discardableResult
    public func send(_ event: DomainEvent) async -> DomainEvent {
        switch event {
        case .message(let event): .message(await send(event))
        case .chat(let event): .chat(await send(event))
        case .user(let event): .user(await send(event))
        }
    }

    /// `sending` answers `sent` or `failedSending`; `editing` answers `edited` or `failedEditing`;
    /// `userReads` answers `userRead`, or itself when the read mark did not move.
    @discardableResult
    public func send(_ event: MessageEvent) async -> MessageEvent {
        switch event {
        case .sending(let outgoing): return await sendMessage(outgoing)
        case .editing(let edit): return await editMessage(edit)
        case .userReads(let report): return await markRead(report)
        case .sent, .failedSending, .edited, .failedEditing, .userRead: return event
        }
    }

    @discardableResult
    public func send(_ event: ChatEvent) async -> ChatEvent {
        guard case .creating(let creator, let handle) = event else { return event }
        do {
            // A malformed handle names nobody: stored handles are all normalised.
            guard let normalized = try? Handle.normalized(handle), let contact = try await store.user(handle: normalized) else {
                throw Refusal.unknownHandle(handle.hasPrefix("@") ? String(handle.dropFirst()) : handle)
            }
            guard contact.id != creator else { throw Refusal.chatWithYourself }
            let chat = try await store.createChat(between: creator, and: contact.id, at: clock.now)
            return await publish(.chat(.created(chat)), ChatEvent.created(chat))
        } catch {
            return .createFailed(creator: creator, reason: Self.refusal(error))
        }
    }

    @discardableResult
    public func send(_ event: UserEvent) async -> UserEvent {
        switch event {
        case .signingUp(let new):
            do {
                let valid = NewUser(
                    handle: try Handle.normalized(new.handle),
                    displayName: try DisplayName.validated(new.displayName),
                    timeZoneIdentifier: Self.timeZone(new.timeZoneIdentifier) ?? "UTC",
                    localeIdentifier: StoredText.identifier(new.localeIdentifier) ?? "en_US",
                    isBot: new.isBot,
                    passwordHash: new.passwordHash
                )
                let user = try await store.createUser(valid, at: clock.now)
                return await publish(.user(.signedUp(user)), .signedUp(user))
            } catch {
                return .signUpFailed(handle: new.handle, reason: Self.refusal(error))
            }
        case .updatingProfile(let change):
            do {
                let valid = ProfileChange(
                    userID: change.userID,
                    displayName: try change.displayName.map { name throws(Refusal) in try DisplayName.validated(name) },
                    timeZoneIdentifier: change.timeZoneIdentifier.flatMap(Self.timeZone),
                    localeIdentifier: change.localeIdentifier.flatMap(StoredText.identifier)
                )
                let user = try await store.updateProfile(valid)
                return await publish(.user(.profileUpdated(user)), .profileUpdated(user))
            } catch {
                return .profileUpdateFailed(change, reason: Self.refusal(error))
            }
        case .signedUp, .signUpFailed, .profileUpdated, .profileUpdateFailed:
            return event
        }
    }

    private func sendMessage(_ outgoing: OutgoingMessage) async -> MessageEvent {
        let valid: OutgoingMessage
        do {
            // Refused before anything is shown or stored: the form says why, the page stays as it was.
            // Membership and the quoted message are checked by the store, in the transaction that stores
            // the message; before that, "Sending" reaches only pages of members (a page opens only its
            // viewer's chats), so a stranger's attempt shows nowhere and stores nothing.
            let body = try MessageText.validated(outgoing.body)
            valid = OutgoingMessage(
                chatID: outgoing.chatID, senderID: outgoing.senderID, body: body, replyTo: outgoing.replyTo,
                token: outgoing.token, createdAt: outgoing.createdAt
            )
        } catch {
            return .failedSending(outgoing, reason: Self.refusal(error))
        }
        await handler.handle(.message(.sending(valid)))
        do {
            let message = try await store.send(valid)
            return await publish(.message(.sent(message, token: valid.token)), .sent(message, token: valid.token))
        } catch {
            let failed = MessageEvent.failedSending(valid, reason: Self.refusal(error))
            return await publish(.message(failed), failed)
        }
    }

    private func editMessage(_ edit: MessageEdit) async -> MessageEvent {
        do {
            let body = try MessageText.validated(edit.body)
            let message = try await store.edit(MessageEdit(messageID: edit.messageID, editorID: edit.editorID, body: body, editedAt: edit.editedAt))
            return await publish(.message(.edited(message)), .edited(message))
        } catch {
            return .failedEditing(edit, reason: Self.refusal(error))
        }
    }

    private func markRead(_ report: ReadReport) async -> MessageEvent {
        do {
            let previous = try await store.membership(report.chatID, report.readerID)?.lastRead
            guard let mark = try await store.markRead(report), mark != previous else { return .userReads(report) }
            let read = MessageEvent.userRead(chat: report.chatID, reader: report.readerID, previous: previous, upTo: mark)
            return await publish(.message(read), read)
        } catch {
            return .userReads(report)
        }
    }

    /// Tells the handler, then the observers; answers `result`.
    private func publish<Result>(_ event: DomainEvent, _ result: Result) async -> Result {
        await handler.handle(event)
        for observer in observers.withLock({ $0 }) { observer.observe(event, router: self) }
        return result
    }

    /// `identifier` when it names a time zone Foundation knows (and is plain ASCII: no NUL cuts it short).
    static func timeZone(_ identifier: String) -> String? {
        StoredText.identifier(identifier).flatMap { TimeZone(identifier: $0) == nil ? nil : $0 }
    }

    /// A refusal as is; any other failure (the disk) as "try again", with no internals.
    static func refusal(_ error: any Error) -> Refusal {
        (error as? Refusal) ?? .unavailable
    }
}
