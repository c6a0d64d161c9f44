import Foundation
import Testing
@testable import ParlorViews

/// The fast paths of formatting give exactly what the general ones give: dates classified against day
/// boundaries computed once, ISO timestamps written by hand, excerpts, initials and links read byte by
/// byte in ASCII text. Inputs come from a seeded generator, so a failure repeats.
@Suite struct FastFormattingTests {
    /// SplitMix64: the same numbers on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The way dates were labelled before day boundaries were computed once: calendar arithmetic per date.
    struct Oracle {
        let calendar: Calendar
        let labels: DateLabels
        let base: Date.FormatStyle

        init(_ locale: String, _ zone: String) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            calendar.locale = Locale(identifier: locale)
            self.calendar = calendar
            labels = DateLabels(locale: Locale(identifier: locale), timeZone: TimeZone(identifier: zone)!)
            base = Date.FormatStyle(locale: calendar.locale!, calendar: calendar, timeZone: calendar.timeZone)
        }

        func days(_ date: Date, _ now: Date) -> Int {
            calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now)).day ?? 0
        }

        func sameYear(_ date: Date, _ now: Date) -> Bool { calendar.component(.year, from: date) == calendar.component(.year, from: now) }

        func listDate(_ date: Date, _ now: Date) -> String {
            switch days(date, now) {
            case 0: labels.timeOfDay(date)
            case 1: yesterdayWord
            case 2...6: base.weekday(.wide).format(date)
            default: sameYear(date, now) ? base.month(.abbreviated).day().format(date) : base.year().month(.defaultDigits).day().format(date)
            }
        }

        func dayLabel(_ date: Date, _ now: Date) -> String {
            switch days(date, now) {
            case 0: todayWord
            case 1: yesterdayWord
            case 2...6: base.weekday(.wide).format(date)
            default: sameYear(date, now) ? base.month(.wide).day().format(date) : base.year().month(.wide).day().format(date)
            }
        }

        var todayWord: String { named(0) }
        var yesterdayWord: String { named(1) }

        private func named(_ days: Double) -> String {
            let anchor = Date(timeIntervalSinceReferenceDate: 0)
            var style = Date.AnchoredRelativeFormatStyle(
                anchor: anchor, presentation: .named, unitsStyle: .wide, locale: calendar.locale!, calendar: calendar,
                capitalizationContext: .beginningOfSentence
            )
            style.allowedFields = [.day]
            return style.format(anchor.addingTimeInterval(days * 86_400))
        }
    }

    @Test(arguments: [
        ("en_US", "America/New_York"), ("fr_FR", "Europe/Paris"), ("ja_JP", "Asia/Tokyo"), ("en_GB", "America/Santiago"),
        ("en_US", "Australia/Lord_Howe"), ("de_DE", "Pacific/Apia"),
    ])
    func datesLabelledAgainstDayBoundariesMatchCalendarArithmetic(locale: String, zone: String) {
        let oracle = Oracle(locale, zone)
        var random = Seeded(state: UInt64(bitPattern: Int64(zone.hashValue & 0xFFFF)) &+ 7)
        // Nows around the clock changes of 2026 and the turn of the year, dates up to 400 days around them.
        let nows = [1_774_800_000.0, 1_792_000_000, 1_798_675_000, 1_767_225_000, 1_795_179_900]
        for nowSeconds in nows {
            let now = Date(timeIntervalSince1970: nowSeconds + Double(random.next() % 86_400))
            let days = oracle.labels.days(at: now)
            for _ in 0..<150 {
                let offset = Double(Int64(random.next() % (800 * 86_400)) - 400 * 86_400) / (random.next() % 3 == 0 ? 50 : 1)
                let date = now.addingTimeInterval(offset)
                #expect(oracle.labels.listDate(date, days: days) == oracle.listDate(date, now), "\(date) at \(now)")
                #expect(oracle.labels.dayLabel(date, days: days) == oracle.dayLabel(date, now), "\(date) at \(now)")
            }
        }
    }

    /// Day boundaries remembered from the last "now" are the ones computed afresh, across midnights and the
    /// clock changes of zones that move at midnight (Santiago, Apia) or by half an hour (Lord Howe).
    @Test(arguments: ["America/Santiago", "Australia/Lord_Howe", "Pacific/Apia", "Europe/Paris", "Asia/Kolkata"])
    func rememberedDayBoundariesMatchFreshOnes(zone: String) {
        let shared = DateLabels(locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: zone)!)
        var random = Seeded(state: 11)
        var now = Date(timeIntervalSince1970: 1_774_000_000)
        for _ in 0..<2_000 {
            // Steps from a second to two days, forward mostly and sometimes back.
            let step = Double(random.next() % (2 * 86_400)) / Double(1 + random.next() % 40)
            now = now.addingTimeInterval(random.next() % 8 == 0 ? -step : step)
            let fresh = DateLabels(locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: zone)!).days(at: now)
            #expect(shared.days(at: now) == fresh, "\(now) in \(zone)")
        }
    }

    @Test func isoTimestampsMatchFoundationsFormatter() {
        let foundation = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)
        var random = Seeded(state: 42)
        var seconds: [Double] = [0, -1, -0.5, 0.999, 951_782_400, 253_402_300_799.9, -62_135_596_800, -2_208_988_800, -2_208_988_801, 1_795_179_900.123]
        for _ in 0..<3_000 { seconds.append(Double(Int64(random.next() % 20_000_000_000) - 5_000_000_000) + Double(random.next() % 1000) / 1000) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(DateLabels.iso(date) == date.formatted(foundation), "\(value)")
        }
        #expect(ISOTimestamp.format(Date(timeIntervalSince1970: .nan)) == nil)
        #expect(ISOTimestamp.format(Date(timeIntervalSince1970: 1e300)) == nil)
    }

    /// ASCII text made of pieces that matter to the rules: spaces of every kind, punctuation, scheme starts.
    static func asciiText(_ random: inout Seeded) -> String {
        let pieces = ["http://", "https://", "HTTP://", "www.", "WwW.", "a", "Z", "9", " ", "  ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}",
                      ".", ",", ";", ":", "!", "?", "'", "(", ")", "[", "{", "<", ">", "\"", "-", "_", "@", "#", "$", "+", "~", "/",
                      "example.org", "x.y/z?q=1"]
        var text = ""
        for _ in 0..<Int(random.next() % 24) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
        return text
    }

    @Test func asciiLinksMatchTheGeneralLinkifier() {
        var random = Seeded(state: 1)
        for _ in 0..<20_000 {
            var text = Self.asciiText(&random)
            let general = Linkifier.generalSegments(text)
            let fast = text.withUTF8 { Linkifier.asciiSegments($0) }
            #expect(fast == general, "\(text.debugDescription)")
        }
    }

    @Test func asciiExcerptsMatchTheGeneralOnes() {
        var random = Seeded(state: 2)
        for _ in 0..<20_000 {
            var text = Self.asciiText(&random)
            let limit = Int(random.next() % 30)
            let general = TextPreview.generalExcerpt(text, limit: limit)
            let fast = text.withUTF8 { TextPreview.asciiExcerpt($0, limit: limit) }
            #expect(fast == general, "\(text.debugDescription) \(limit)")
        }
    }

    @Test func asciiInitialsMatchTheGeneralOnesForEveryCharacter() {
        for byte in UInt8(0)..<0x80 {
            let c = String(UnicodeScalar(byte))
            for (name, handle) in [("\(c)ana \(c)lima", "h\(c)"), ("a\(c)b", "\(c)1"), ("\(c)", "\(c)"), ("Ana\(c)Lima", "ana")] {
                #expect(Initials.asciiInitials(displayName: name, handle: handle) == Initials.generalInitials(displayName: name, handle: handle),
                        "\(name.debugDescription) \(handle.debugDescription)")
            }
        }
        var random = Seeded(state: 3)
        for _ in 0..<5_000 {
            let name = Self.asciiText(&random), handle = Self.asciiText(&random)
            #expect(Initials.asciiInitials(displayName: name, handle: handle) == Initials.generalInitials(displayName: name, handle: handle))
        }
        #expect(Initials.asciiInitials(displayName: "Zoë", handle: "zoe") == nil, "not ASCII: the general path")
    }
}
