import Foundation
import ParlorViews
import Testing

// Dates as the chat list and conversations show them, for a viewer's locale and time zone.

@Suite struct DateLabelsTests {
    private static func instant(_ iso: String) -> Date {
        try! Date(iso, strategy: .iso8601)
    }

    private func labels(_ locale: String, _ zone: String) -> DateLabels {
        DateLabels(locale: Locale(identifier: locale), timeZone: TimeZone(identifier: zone)!)
    }

    /// Friday 20 November 2026, 14:05 in Paris.
    private let now = instant("2026-11-20T13:05:00Z")

    @Test(arguments: [
        // locale, instant, expected
        ("en_US", "2026-11-20T12:58:00Z", "1:58\u{202F}PM"),
        ("fr_FR", "2026-11-20T12:58:00Z", "13:58"),
        ("ja_JP", "2026-11-20T12:58:00Z", "13:58"),
        ("en_US", "2026-11-19T20:15:00Z", "Yesterday"),
        ("fr_FR", "2026-11-19T20:15:00Z", "Hier"),
        ("ja_JP", "2026-11-19T20:15:00Z", "昨日"),
        ("en_US", "2026-11-17T09:00:00Z", "Tuesday"),
        ("fr_FR", "2026-11-17T09:00:00Z", "mardi"),
        ("ja_JP", "2026-11-17T09:00:00Z", "火曜日"),
        ("en_US", "2026-11-14T09:00:00Z", "Saturday"),
        ("en_US", "2026-11-13T09:00:00Z", "Nov 13"),
        ("en_US", "2026-03-02T08:30:00Z", "Mar 2"),
        ("fr_FR", "2026-03-02T08:30:00Z", "2 mars"),
        ("ja_JP", "2026-03-02T08:30:00Z", "3月2日"),
        ("en_US", "2025-11-20T18:00:00Z", "11/20/2025"),
        ("fr_FR", "2025-11-20T18:00:00Z", "20/11/2025"),
        ("ja_JP", "2025-11-20T18:00:00Z", "2025/11/20"),
    ])
    func theChatListShowsTimeYesterdayWeekdayMonthDayOrFullDate(locale: String, iso: String, expected: String) {
        #expect(labels(locale, "Europe/Paris").listDate(Self.instant(iso), now: now) == expected)
    }

    @Test func justAfterMidnightTheMinutesBeforeAreYesterday() {
        let paris = labels("en_GB", "Europe/Paris")
        let midnightAndFive = Self.instant("2026-11-20T23:05:00Z")  // 00:05 on Saturday in Paris
        #expect(paris.listDate(Self.instant("2026-11-20T22:55:00Z"), now: midnightAndFive) == "Yesterday")
        #expect(paris.listDate(Self.instant("2026-11-20T23:01:00Z"), now: midnightAndFive) == "00:01")
    }

    @Test func theSameInstantIsTodayInTokyoAndYesterdayInLosAngeles() {
        let message = Self.instant("2026-11-20T16:00:00Z")  // Sat 01:00 in Tokyo, Fri 08:00 in Los Angeles
        let later = Self.instant("2026-11-21T10:00:00Z")  // Sat 19:00 in Tokyo, Sat 02:00 in Los Angeles
        #expect(labels("ja_JP", "Asia/Tokyo").listDate(message, now: later) == "1:00")
        #expect(labels("en_US", "America/Los_Angeles").listDate(message, now: later) == "Yesterday")
    }

    @Test func daysAreCalendarDaysAcrossTheAutumnChangeInParis() {
        // 25 October 2026 has 25 hours in Paris; now is 23:30 that day.
        let paris = labels("en_GB", "Europe/Paris")
        let lateOnTheLongDay = Self.instant("2026-10-25T22:30:00Z")
        #expect(paris.listDate(Self.instant("2026-10-24T22:10:00Z"), now: lateOnTheLongDay) == "00:10")
        #expect(paris.listDate(Self.instant("2026-10-24T21:50:00Z"), now: lateOnTheLongDay) == "Yesterday")
        #expect(paris.daysBetween(Self.instant("2026-10-18T21:50:00Z"), and: lateOnTheLongDay) == 7)
    }

    @Test func daysAreCalendarDaysAcrossTheSpringChangeInNewYork() {
        // 8 March 2026 has 23 hours in New York; now is 00:30 on the 9th.
        let newYork = labels("en_US", "America/New_York")
        let justAfter = Self.instant("2026-03-09T04:30:00Z")
        #expect(newYork.listDate(Self.instant("2026-03-08T05:10:00Z"), now: justAfter) == "Yesterday")  // 00:10 EST on the 8th
        #expect(newYork.listDate(Self.instant("2026-03-02T05:30:00Z"), now: justAfter) == "Mar 2")  // 7 days before
        #expect(newYork.listDate(Self.instant("2026-03-03T05:30:00Z"), now: justAfter) == "Tuesday")  // 6 days before
    }

    @Test func conversationDaySeparatorsSpellTheMonthOut() {
        let english = labels("en_US", "Europe/Paris")
        #expect(english.dayLabel(Self.instant("2026-11-20T08:00:00Z"), now: now) == "Today")
        #expect(english.dayLabel(Self.instant("2026-11-19T08:00:00Z"), now: now) == "Yesterday")
        #expect(english.dayLabel(Self.instant("2026-11-12T08:00:00Z"), now: now) == "November 12")
        #expect(english.dayLabel(Self.instant("2025-11-12T08:00:00Z"), now: now) == "November 12, 2025")
        #expect(labels("fr_FR", "Europe/Paris").dayLabel(Self.instant("2026-11-20T08:00:00Z"), now: now) == "Aujourd’hui")
        #expect(labels("ja_JP", "Asia/Tokyo").dayLabel(Self.instant("2026-11-12T08:00:00Z"), now: now) == "11月12日")
    }

    @Test func tooltipsCarryTheFullDateAndTime() {
        let date = Self.instant("2026-11-20T12:58:00Z")
        #expect(labels("en_US", "Europe/Paris").fullDate(date) == "Friday, November 20, 2026 at 1:58\u{202F}PM")
        #expect(labels("fr_FR", "Europe/Paris").fullDate(date) == "vendredi 20 novembre 2026 à 13:58")
        #expect(DateLabels.iso(date) == "2026-11-20T12:58:00Z")
    }
}
