import Clocks
import Foundation
import Logging
import ParlorDomain
import Synchronization

/// Checks the sessions of this instance's open event streams where they are used: when any instance says a
/// person's sessions ended (sign-out, sign-out everywhere, a password changed or reset, a deactivation), that
/// person's streams are checked against the store at once, and every stream is checked again at each `interval`
/// (a session that expired, a change this instance did not hear). A stream whose session is gone closes; its page
/// reconnects, is refused and reloads into sign-in. It also hands every instance's presence the preference to
/// appear offline, whichever instance it was saved on. Subscribe ``receive(_:)`` to the bus and ``run()`` it.
public final class StreamSessions: Sendable {
    let streams: AccountStreams
    let accounts: any SessionReads
    let clock: any WallClock
    let presence: PresenceReporter?
    let interval: Duration
    /// Times the interval (a test drives it); `clock` is the "now" sessions expire by.
    let timer: AnyClock<Duration>
    let logger: Logger
    /// What the bus said and the loop has yet to act on: coalesced, so nothing waiting is ever dropped and a burst
    /// costs one check per person.
    private let pending = Mutex<(people: Set<UserID>, appearsOffline: [UserID: Bool])>(([], [:]))
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Checks made so far (tests wait on it rather than on time).
    private let checks = Atomic<Int>(0)
    public var checksMade: Int { checks.load(ordering: .acquiring) }

    public init(
        streams: AccountStreams, accounts: any SessionReads, clock: any WallClock, presence: PresenceReporter?, interval: Duration,
        timer: AnyClock<Duration> = AnyClock(ContinuousClock()), logger: Logger
    ) {
        self.timer = timer
        self.streams = streams
        self.accounts = accounts
        self.clock = clock
        self.presence = presence
        self.interval = interval
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Takes an event from the bus; returns at once.
    public func receive(_ published: PublishedEvent) {
        switch published.event {
        case .account(.sessionsEnded(let ended)):
            pending.withLock { _ = $0.people.insert(ended.userID) }
        case .user(.accountChanged(let state)) where !state.isActive:
            pending.withLock { _ = $0.people.insert(state.user.id) }
        case .account(.preferencesChanged(let user, let preferences)):
            guard presence != nil else { return }
            pending.withLock { $0.appearsOffline[user] = preferences.appearsOffline }
        default:
            return
        }
        wake.yield()
    }

    /// Acts on what the bus said as it comes, and checks every stream at each interval, until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                // The iteration ends when the task is cancelled.
                for await _ in self.wakeups {
                    let (people, preferences) = self.pending.withLock { pending in
                        defer { pending = ([], [:]) }
                        return pending
                    }
                    for (user, appearsOffline) in preferences { self.presence?.preferenceChanged(user, appearsOffline: appearsOffline) }
                    for user in people { await self.check(self.streams.sessions(of: user)) }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await self.timer.sleep(for: self.interval) } catch { return }
                    await self.check(self.streams.allSessions())
                }
            }
        }
    }

    /// Closes the streams of those of `sessions` that are no longer live. A store that cannot answer closes nothing:
    /// the next check asks again.
    func check(_ sessions: [String]) async {
        defer { checks.add(1, ordering: .releasing) }
        guard !sessions.isEmpty else { return }
        do {
            let live = try await accounts.liveSessions(among: sessions, now: clock.now)
            let gone = Set(sessions).subtracting(live)
            guard !gone.isEmpty else { return }
            let closed = streams.close(sessions: gone)
            logger.info("event streams of ended sessions closed", metadata: ["streams": "\(closed)"])
        } catch {
            logger.warning("the sessions of open event streams could not be checked", metadata: ["error": "\(error)"])
        }
    }
}
