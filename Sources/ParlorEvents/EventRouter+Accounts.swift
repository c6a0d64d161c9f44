import ParlorDomain

// Sessions, passwords, roles, the Parlor's settings, join links, bot keys, push subscriptions and preferences:
// stored through the injected stores, published as events every instance hears.

extension EventRouter {
    /// Each command answers its stored outcome (`signedIn`, `sessionsEnded`, `roleChanged`, `settingsChanged`,
    /// `joinLinkReplaced`, `botKeyReplaced`, `pushSubscriptionsChanged`, `preferencesChanged`) or `refused`
    /// (`notFound` for signing out of a session that is gone already, or removing a browser that is).
    @discardableResult
    public func send(_ event: AccountEvent, requestID: String? = nil) async -> AccountEvent {
        do {
            guard let outcome = try await apply(event) else { return event }
            return await publish(.account(outcome), outcome, requestID)
        } catch {
            return .refused(refusal(error, DomainEvent.account(event).kind, requestID))
        }
    }

    /// Stores a command; nil for an outcome (sent back as it came).
    private func apply(_ event: AccountEvent) async throws -> AccountEvent? {
        switch event {
        case .signingIn(let session):
            try await timed("create_session") { try await accountStore().createSession(session) }
            return .signedIn(session.userID)
        case .signingOut(let hash):
            guard let user = try await timed("end_session", { try await accountStore().deleteSession(idHash: hash) }) else { throw Refusal.notFound }
            return .sessionsEnded(SessionsEnded(userID: user, count: 1, cause: .signedOut))
        case .signingOutEverywhere(let user, let keeping):
            let count = try await timed("end_sessions") { try await accountStore().endSessions(of: user, keeping: keeping) }
            return .sessionsEnded(SessionsEnded(userID: user, count: count, cause: .signedOutEverywhere))
        case .changingPassword(let change):
            let count = try await timed("change_password") {
                try await accountStore().changePassword(of: change.userID, to: change.passwordHash, keeping: change.keeping)
            }
            return .sessionsEnded(SessionsEnded(userID: change.userID, count: count, cause: .passwordChanged))
        case .resettingPassword(let handle, let hash):
            guard let normalized = try? Handle.normalized(handle) else { throw Refusal.invalidHandle }
            return .sessionsEnded(try await timed("reset_password") { try await administrator().resetPassword(handle: normalized, to: hash) })
        case .changingRole(let change):
            try await requireAdministrator(change.by)
            let account = try await timed("set_role") { try await administrator().setRole(change.role, of: change.person) }
            return .roleChanged(person: account.user.id, account.role)
        case .changingSettings(let change):
            try await requireAdministrator(change.by)
            _ = try await timed("change_settings") {
                try await administrator().changeSettings(signUpPolicy: change.signUpPolicy, onlyAdministratorsCreateRooms: change.onlyAdministratorsCreateRooms)
            }
            return .settingsChanged
        case .replacingJoinLink(let link, let by):
            // Nobody named: the operator, at the machine (`parlor admin create-invite`).
            if let by { try await requireAdministrator(by) }
            try await timed("replace_join_link") { try await administrator().replaceJoinLink(link) }
            return .joinLinkReplaced
        case .replacingBotKey(let bot, let keyHash, let by):
            try await requireAdministrator(by)
            try await timed("replace_bot_key") { try await administrator().replaceBotKey(of: bot, keyHash: keyHash) }
            return .botKeyReplaced(bot)
        case .subscribingPush(let subscription, let limit):
            _ = try await timed("subscribe_push") { try await pushStore().addPushSubscription(subscription, keepingNewest: limit) }
            return .pushSubscriptionsChanged(subscription.userID)
        case .unsubscribingPush(let removal):
            guard try await timed("unsubscribe_push", { try await pushStore().removePushSubscription(removal) }) else { throw Refusal.notFound }
            return .pushSubscriptionsChanged(removal.userID)
        case .changingPreferences(let user, let preferences):
            try await timed("set_preferences") { try await pushStore().setNotificationPreferences(preferences, of: user) }
            return .preferencesChanged(user, preferences)
        case .signedIn, .sessionsEnded, .roleChanged, .settingsChanged, .joinLinkReplaced, .botKeyReplaced, .pushSubscriptionsChanged,
             .preferencesChanged, .refused:
            return nil
        }
    }

    /// Whether `person` is an active administrator at this moment; `administratorsOnly` if not.
    private func requireAdministrator(_ person: UserID) async throws {
        guard try await administrator().account(person)?.isActiveAdministrator == true else { throw Refusal.administratorsOnly }
    }

    private func accountStore() throws(Refusal) -> any AccountStore {
        guard let accounts else { throw .unavailable }
        return accounts
    }

    private func administrator() throws(Refusal) -> any AdministrationStore {
        guard let administration else { throw .unavailable }
        return administration
    }

    private func pushStore() throws(Refusal) -> any PushStore {
        guard let push else { throw .unavailable }
        return push
    }
}
