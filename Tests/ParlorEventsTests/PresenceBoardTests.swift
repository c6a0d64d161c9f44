import ParlorDomain
@testable import ParlorLive
import Testing

/// What others see of a person, from several instances' reports, as time passes.
@Suite struct PresenceBoardTests {
    let ben = UserID(2)
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1_000)) }

    @Test func theMostPresentInstanceCountsAndTheLastPageClosingLeavesAGrace() {
        let board = PresenceBoard(offlineAfter: .seconds(60), reportLifetime: .seconds(180))
        #expect(board.shown(ben, now: at(0)) == .offline)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .away), now: at(0))
        board.apply(PresenceReport(userID: ben, instance: 2, state: .active), now: at(1))
        #expect(board.shown(ben, now: at(2)) == .active, "a page in front on either instance")
        #expect(board.isActive(ben, elsewhereThan: 1, now: at(2)) && !board.isActive(ben, elsewhereThan: 2, now: at(2)), "in front on instance 2 only")
        board.apply(PresenceReport(userID: ben, instance: 2, state: .gone), now: at(3))
        #expect(board.shown(ben, now: at(4)) == .away)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .gone), now: at(10))
        #expect(board.shown(ben, now: at(69)) == .away, "a minute's grace after the last page")
        #expect(board.shown(ben, now: at(71)) == .offline)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .active, appearsOffline: true), now: at(80))
        #expect(board.shown(ben, now: at(81)) == .offline, "appearing offline")
    }

    @Test func anInstanceThatStopsRenewingItsReportsIsForgotten() {
        let board = PresenceBoard(offlineAfter: .seconds(60), reportLifetime: .seconds(180))
        board.apply(PresenceReport(userID: ben, instance: 7, state: .active), now: at(0))
        board.refresh([PresenceReport(userID: ben, instance: 7, state: .active)], now: at(100))
        #expect(board.shown(ben, now: at(250)) == .active, "renewed at 100 s")
        #expect(board.shown(ben, now: at(290)) == .away, "not renewed: its report aged")
        #expect(board.shown(ben, now: at(400)) == .offline)
    }

    @Test func thePagesAreToldOfEachChangeOnce() {
        let board = PresenceBoard(offlineAfter: .seconds(1), reportLifetime: .seconds(180))
        board.apply(PresenceReport(userID: ben, instance: 1, state: .active), now: at(0))
        #expect(board.changed(now: at(0)) == [ben])
        #expect(board.delivering(.active, for: ben))
        #expect(!board.delivering(.active, for: ben), "told already")
        #expect(board.changed(now: at(0)).isEmpty)
        board.apply(PresenceReport(userID: ben, instance: 1, state: .gone), now: at(1))
        #expect(board.changed(now: at(1.5)) == [ben] && board.delivering(.away, for: ben))
        #expect(board.changed(now: at(3)) == [ben] && board.delivering(.offline, for: ben))
        #expect(board.changed(now: at(4)).isEmpty)
    }
}
