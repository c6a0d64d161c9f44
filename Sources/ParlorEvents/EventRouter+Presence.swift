import ParlorDomain

extension EventRouter {
    /// `reportingTyping` answers `typing` (published to the chat's pages, on every instance) or `typingRefused`: not
    /// a member (membership now, read from the store), a room of more than ``Typing/memberLimit`` members, a
    /// "start" sooner than ``TypingThrottle`` allows, or more reports of the person than it allows in all. A "stop"
    /// within that goes through: it only ever hides a name. Nothing is stored.
    @discardableResult
    public func send(_ event: PresenceEvent, requestID: String? = nil) async -> PresenceEvent {
        switch event {
        case .reportingPresence(let report):
            return await publishPresence(.presence(.presenceChanged(report)), .presenceChanged(report), requestID)
        case .refreshingPresence(let reports):
            return await publishPresence(.presence(.presenceRefreshed(reports)), .presenceRefreshed(reports), requestID)
        case .reportingTyping(let report):
            return await typing(report, requestID)
        case .typing, .typingRefused, .presenceChanged, .presenceRefreshed:
            return event
        }
    }

    private func typing(_ report: TypingReport, _ requestID: String?) async -> PresenceEvent {
        // Before the store is asked: a script's flood costs no lookup.
        guard typingStarts.admitReport(report.userID) else { return .typingRefused(report, reason: .tooFrequent) }
        do {
            // Two rows, whatever the room's size: its count and the typist's membership.
            guard let count = try await store.memberCount(of: report.chatID), try await store.membership(report.chatID, report.userID) != nil else {
                return .typingRefused(report, reason: .notFound)
            }
            guard count <= Typing.memberLimit else { return .typingRefused(report, reason: .tooManyToShowTyping(limit: Typing.memberLimit)) }
        } catch {
            return .typingRefused(report, reason: .unavailable)
        }
        if report.isTyping {
            guard typingStarts.admit(report.userID, in: report.chatID) else { return .typingRefused(report, reason: .tooFrequent) }
        }
        return await publishPresence(.presence(.typing(report)), .typing(report), requestID)
    }
}
