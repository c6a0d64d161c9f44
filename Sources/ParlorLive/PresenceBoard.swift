import Clocks
import ParlorDomain
import Synchronization

/// Each person's presence as others see it, from what every instance reports (``PresenceReport``): active when
/// a page of theirs is in front of them somewhere, away while pages are open otherwise and for a grace period
/// after the last one closed (a reload, a moment offline), offline after it, or at once when they chose to
/// appear offline. A report an instance stopped renewing (it stopped, or crashed) counts for a limited time.
final class PresenceBoard: Sendable {
    private struct Person: Sendable {
        /// Each instance's last report, and when it came.
        var reports: [Int64: (state: LocalPresence, at: AnyClock<Duration>.Instant)] = [:]
        var appearsOffline = false
        /// When the last page closed everywhere; nil while one is open.
        var goneSince: AnyClock<Duration>.Instant?
        /// What the pages were last told.
        var delivered: PresenceState = .offline
    }

    let offlineAfter: Duration
    let reportLifetime: Duration
    private let people = Mutex<[UserID: Person]>([:])
    private let clock: AnyClock<Duration>

    /// `clock` times the grace and the reports' lifetime.
    init(clock: AnyClock<Duration>, offlineAfter: Duration = Presence.offlineAfter, reportLifetime: Duration = Presence.reportLifetime) {
        self.clock = clock
        self.offlineAfter = offlineAfter
        self.reportLifetime = reportLifetime
    }

    /// Takes an instance's report.
    func apply(_ report: PresenceReport) {
        apply(report, now: clock.now)
    }

    private func apply(_ report: PresenceReport, now: AnyClock<Duration>.Instant) {
        people.withLock { people in
            var person = people[report.userID, default: Person()]
            let wasPresent = Self.isPresent(person)
            if report.state == .gone { person.reports[report.instance] = nil } else { person.reports[report.instance] = (report.state, now) }
            person.appearsOffline = report.appearsOffline
            if Self.isPresent(person) {
                person.goneSince = nil
            } else if wasPresent || person.goneSince == nil {
                person.goneSince = now
            }
            people[report.userID] = person
        }
    }

    /// An instance says again who is present there: their reports are renewed.
    func refresh(_ reports: [PresenceReport]) {
        let now = clock.now
        for report in reports { apply(report, now: now) }
    }

    /// Whether a page of `user`'s is in front of them on an instance other than `instance`, whatever they chose to
    /// show others.
    func isActive(_ user: UserID, elsewhereThan instance: Int64) -> Bool {
        let now = clock.now
        return people.withLock { people in
            people[user]?.reports.contains { $0.key != instance && $0.value.state == .active && now - $0.value.at < reportLifetime } ?? false
        }
    }

    /// What others see of `user` now.
    func shown(_ user: UserID) -> PresenceState {
        let now = clock.now
        return people.withLock { people in people[user].map { shown($0, now: now) } ?? .offline }
    }

    private func shown(_ person: Person, now: AnyClock<Duration>.Instant) -> PresenceState {
        if person.appearsOffline { return .offline }
        let live = person.reports.values.filter { now - $0.at < reportLifetime }
        if live.contains(where: { $0.state == .active }) { return .active }
        if !live.isEmpty { return .away }
        if let gone = person.goneSince, now - gone < offlineAfter { return .away }
        if person.goneSince == nil, let newest = person.reports.values.map(\.at).max(), now - newest < reportLifetime + offlineAfter { return .away }
        return .offline
    }

    private static func isPresent(_ person: Person) -> Bool { !person.reports.isEmpty }

    /// Records that the pages were told `state` for `user`; false when they had been told it already.
    func delivering(_ state: PresenceState, for user: UserID) -> Bool {
        people.withLock { people in
            guard var person = people[user] else { return state != .offline }
            guard person.delivered != state else { return false }
            person.delivered = state
            people[user] = person
            return true
        }
    }

    /// The people whose shown state is not what the pages were told (time passed: a grace ended, a report aged);
    /// those long offline are forgotten.
    func changed() -> [UserID] {
        let now = clock.now
        return people.withLock { people in
            var changed: [UserID] = []
            for (user, person) in people {
                let state = shown(person, now: now)
                if state != person.delivered { changed.append(user) }
                if state == .offline, person.delivered == .offline, person.reports.isEmpty { people[user] = nil }
            }
            return changed
        }
    }
}
