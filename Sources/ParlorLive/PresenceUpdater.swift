import ParlorDomain
import ParlorViews

/// Presence dots: a person's state goes to the pages that show them (``PageSubscription/watching``), when what
/// others see of them changes, and to a page as it opens. Only to people who share a chat with them, checked
/// at each change.
struct PresenceUpdater: LiveUpdater {
    let live: LiveContext

    /// How many people one read asks about.
    static let sharingReadSize = 500

    /// Tells the pages that show `user` what others see of them now, unless they were told it already.
    func showPresence(of user: UserID) async throws {
        let state = live.presence.shown(user)
        guard live.presence.delivering(state, for: user) else { return }
        let watchers = live.registry.withLock { $0.watchers(of: user) }
        guard !watchers.isEmpty, let person = try await known.user(user, in: store) else { return }
        // Membership at this change: whoever no longer shares a chat with the person is told nothing more of them.
        let viewers = Set(watchers.map(\.viewer))
        let allowed = try await sharing(with: user, among: viewers)
        if allowed.count < viewers.count {
            let gone = viewers.subtracting(allowed)
            live.registry.withLock { $0.unwatch(user, by: gone) }
        }
        let update = renderer.update(.presence, "presence-\(user)", .presence(PresenceBuilder.presence(of: user, named: person.displayName, state)))
        for watcher in watchers where allowed.contains(watcher.viewer) { watcher.listener.receive(update) }
    }

    /// Those of `people` who share a chat with `user` now, read a few hundred at a time.
    func sharing(with user: UserID, among people: Set<UserID>) async throws -> Set<UserID> {
        guard !people.isEmpty else { return [] }
        let sorted = people.sorted()
        var found: Set<UserID> = []
        for start in stride(from: 0, to: sorted.count, by: Self.sharingReadSize) {
            let part = Set(sorted[start..<min(start + Self.sharingReadSize, sorted.count)])
            found.formUnion(try await store.sharingAChat(with: user, among: part))
        }
        return found
    }

    /// The presence of the people a page shows, as it opens: those offline are not sent (a dot starts offline).
    func presenceNow(of people: Set<UserID>) async throws -> [ScreenUpdate] {
        var updates: [ScreenUpdate] = []
        for user in people.sorted() {
            let state = live.presence.shown(user)
            guard state != .offline, let person = try await known.user(user, in: store) else { continue }
            updates.append(renderer.update(.presence, "presence-\(user)", .presence(PresenceBuilder.presence(of: user, named: person.displayName, state))))
        }
        return updates
    }

    /// Every second by the timer, the people whose dot changed with time (a grace ended, a report aged) are told
    /// of, each in their lane (`queue`), until cancelled.
    func sweep(queue: (PublishedEvent) -> Void) async {
        while !Task.isCancelled {
            do { try await live.timer.sleep(for: .seconds(1)) } catch { return }
            for user in live.presence.changed() {
                // Queued past the board: it has nothing new to take, only a dot to send.
                queue(PublishedEvent(.presence(.presenceChanged(PresenceReport(userID: user, instance: 0, state: .gone)))))
            }
        }
    }
}
