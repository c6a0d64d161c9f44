import BoundedWork
import Clocks
import Foundation
import Logging
import ParlorDomain
import ParlorEvents
import ParlorLive
import Synchronization

/// This instance's side of presence: what its pages say (a stream opened or closed, a page hidden, shown or idle)
/// becomes a report through the router whenever a person's presence here changes, with whether they chose to
/// appear offline; every minute it says again who is here, so other instances know it still stands. The reports
/// wait in a queue that ``run()`` empties: a page's stream ends on a server thread that must not wait. One person's
/// reports go at most one a second (a script flipping a tab back and forth costs nothing more): a change within
/// the second waits, and only the state at the end of it is sent.
public final class PresenceReporter: Sendable {
    /// This instance, among those that share a database (a number made at start).
    public let instance: Int64
    let pages: VisiblePages
    let events: EventRouter
    let preferences: any PushReads
    let logger: Logger
    /// Whether each person here chose to appear offline, read once while they have pages open.
    private let hidden = Mutex<[UserID: Bool]>([:])
    /// When each person's last report went, and those whose next one waits for the second to end.
    private let paced = Mutex<(sent: [UserID: AnyClock<Duration>.Instant], waiting: Set<UserID>)>(([:], []))
    /// Times the pacing of reports and the refresh.
    let timer: AnyClock<Duration>
    /// Least time between two reports of one person.
    static let reportInterval: Duration = .seconds(1)
    /// What one person's pages may say in all (``PresenceRoutes``): a burst as tabs change, four a second after that.
    static let pageReportRate = Rate(burst: 10, every: .milliseconds(250))
    private let pageReports = RateBudget<UserID>(pageReportRate)
    /// What the pages said, sent on one at a time in order.
    private let changes: WorkerQueue<Change>

    enum Change: Sendable {
        case state(UserID, LocalPresence)
        /// The person's choice to appear offline changed (or is to be read: nil).
        case preference(UserID, appearsOffline: Bool)
    }

    /// How often who is here is said again.
    let refreshEvery: Duration

    public init(
        pages: VisiblePages, events: EventRouter, preferences: any PushReads, refreshEvery: Duration = Presence.refreshEvery,
        timer: AnyClock<Duration> = AnyClock(ContinuousClock()), logger: Logger, refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        instance = Int64.random(in: 1...Int64.max)
        self.timer = timer
        self.refreshEvery = refreshEvery
        self.pages = pages
        self.events = events
        self.preferences = preferences
        self.logger = logger
        changes = WorkerQueue(high: 100_000, concurrency: 1, refused: refused)
    }

    /// A page's stream opened; `visible` and `idle` as the page says.
    public func opened(_ user: UserID, page: String, visible: Bool, idle: Bool = false) {
        if let state = pages.opened(user, page: page, visible: visible, idle: idle) { changes.submit(.state(user, state)) }
    }

    /// Whether one more report of `user`'s pages is within their budget (then spent): nil, or how long to wait.
    public func admitReport(of user: UserID) -> Duration? {
        pageReports.spend(user)
    }

    /// A page says whether it is visible, and whether its person is idle.
    @discardableResult
    public func reported(_ user: UserID, page: String, visible: Bool, idle: Bool) -> Bool {
        let known = pages.openPages(of: user) > 0
        if let state = pages.reported(user, page: page, visible: visible, idle: idle) { changes.submit(.state(user, state)) }
        return known
    }

    public func closed(_ user: UserID, page: String) {
        if let state = pages.closed(user, page: page) { changes.submit(.state(user, state)) }
    }

    /// The person chose to appear offline, or not (their pages here, if any, say so at once).
    public func preferenceChanged(_ user: UserID, appearsOffline: Bool) {
        changes.submit(.preference(user, appearsOffline: appearsOffline))
    }

    /// Returns once what the pages said so far has been handled (sent, or left waiting for its second).
    public func settled() async { await changes.settled() }

    /// Sends the reports as they come, and every minute who is here, until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.changes.run { change in
                    switch change {
                    case .state(let user, let state):
                        guard self.mayReport(user) else { return }
                        let appearsOffline = await self.appearsOffline(user)
                        if state == .gone { _ = self.hidden.withLock { $0.removeValue(forKey: user) } }
                        await self.send(user, state, appearsOffline: appearsOffline)
                    case .preference(let user, let appearsOffline):
                        let state = self.pages.localState(of: user)
                        guard state != .gone else { return }
                        self.hidden.withLock { $0[user] = appearsOffline }
                        await self.send(user, state, appearsOffline: appearsOffline)
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.timer.sleep(for: self.refreshEvery) } catch { return }
                    await self.refresh()
                }
            }
            // The reports that waited for their second: the state each person is in now.
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.timer.sleep(for: Self.reportInterval / 4) } catch { return }
                    for user in self.due() {
                        let state = self.pages.localState(of: user)
                        let appearsOffline = await self.appearsOffline(user)
                        if state == .gone { _ = self.hidden.withLock { $0.removeValue(forKey: user) } }
                        await self.send(user, state, appearsOffline: appearsOffline)
                    }
                }
            }
        }
    }

    /// Whether a report of `user` may go now; if not, it waits for ``due()``.
    private func mayReport(_ user: UserID) -> Bool {
        let now = timer.now
        return paced.withLock { paced in
            if let last = paced.sent[user], now - last < Self.reportInterval {
                paced.waiting.insert(user)
                return false
            }
            paced.sent[user] = now
            if paced.sent.count > 100_000 { paced.sent = paced.sent.filter { now - $0.value < Self.reportInterval } }
            return true
        }
    }

    /// The people whose waiting report may go now.
    private func due() -> [UserID] {
        let now = timer.now
        return paced.withLock { paced in
            let ready = paced.waiting.filter { user in paced.sent[user].map { now - $0 >= Self.reportInterval } ?? true }
            for user in ready { paced.sent[user] = now }
            paced.waiting.subtract(ready)
            return Array(ready)
        }
    }

    /// Says again who is here.
    func refresh() async {
        var reports: [PresenceReport] = []
        for (user, state) in pages.everyone where state != .gone {
            reports.append(PresenceReport(userID: user, instance: instance, state: state, appearsOffline: await appearsOffline(user)))
        }
        guard !reports.isEmpty else { return }
        await events.send(.refreshingPresence(reports))
    }

    private func send(_ user: UserID, _ state: LocalPresence, appearsOffline: Bool) async {
        await events.send(.reportingPresence(PresenceReport(userID: user, instance: instance, state: state, appearsOffline: appearsOffline)))
    }

    private func appearsOffline(_ user: UserID) async -> Bool {
        if let known = hidden.withLock({ $0[user] }) { return known }
        do {
            let read = try await preferences.notificationPreferences(of: user).appearsOffline
            hidden.withLock { $0[user] = read }
            return read
        } catch {
            logger.warning("could not read whether a person appears offline", metadata: ["user": "\(user)", "error": "\(error)"])
            return false
        }
    }
}
