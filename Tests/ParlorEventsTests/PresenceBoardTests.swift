import Clocks
import ParlorDomain
@testable import ParlorLive
import Testing

/// What others see of a person, from several instances' reports, as the board's clock moves on.
@Suite struct PresenceBoardTests {
    let ben = UserID(2)
    let clock = TestClock<Duration>()

    func board(offlineAfter: Duration) -> PresenceBoard {
        PresenceBoard(clock: AnyClock(clock), offlineAfter: offlineAfter, reportLifetime: .seconds(180))
    }

    /// Moves the board's clock to `seconds` after the start.
    func at(_ seconds: Double) async {
        await clock.advance(to: TestClock.Instant(offset: .milliseconds(Int64(seconds * 1_000))))
    }

    @Test func theMostPresentInstanceCountsAndTheLastPageClosingLeavesAGrace() async {
        let board = board(offlineAfter: .seconds(60))
        #expect(board.shown(ben) == .offline)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .away))
        await at(1)
        board.apply(PresenceReport(userID: ben, instance: 2, state: .active))
        await at(2)
        #expect(board.shown(ben) == .active, "a page in front on either instance")
        #expect(board.isActive(ben, elsewhereThan: 1) && !board.isActive(ben, elsewhereThan: 2), "in front on instance 2 only")
        await at(3)
        board.apply(PresenceReport(userID: ben, instance: 2, state: .gone))
        await at(4)
        #expect(board.shown(ben) == .away)
        await at(10)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .gone))
        await at(69)
        #expect(board.shown(ben) == .away, "a minute's grace after the last page")
        await at(71)
        #expect(board.shown(ben) == .offline)
        await at(80)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .active, appearsOffline: true))
        await at(81)
        #expect(board.shown(ben) == .offline, "appearing offline")
    }

    @Test func anInstanceThatStopsRenewingItsReportsIsForgotten() async {
        let board = board(offlineAfter: .seconds(60))
        board.apply(PresenceReport(userID: ben, instance: 7, state: .active))
        await at(100)
        board.refresh([PresenceReport(userID: ben, instance: 7, state: .active)])
        await at(250)
        #expect(board.shown(ben) == .active, "renewed at 100 s")
        await at(290)
        #expect(board.shown(ben) == .away, "not renewed: its report aged")
        await at(400)
        #expect(board.shown(ben) == .offline)
    }

    @Test func thePagesAreToldOfEachChangeOnce() async {
        let board = board(offlineAfter: .seconds(1))
        board.apply(PresenceReport(userID: ben, instance: 1, state: .active))
        #expect(board.changed() == [ben])
        #expect(board.delivering(.active, for: ben))
        #expect(!board.delivering(.active, for: ben), "told already")
        #expect(board.changed().isEmpty)
        await at(1)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .gone))
        await at(1.5)
        #expect(board.changed() == [ben] && board.delivering(.away, for: ben))
        await at(3)
        #expect(board.changed() == [ben] && board.delivering(.offline, for: ben))
        await at(4)
        #expect(board.changed().isEmpty)
    }
}
