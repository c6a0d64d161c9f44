import Foundation
import Synchronization

/// Every date Parlor shows, formatted for one viewer's locale and time zone relative to an injected "now".
/// The same inputs always give the same text, which is what makes HTML snapshots possible.
///
/// Building one costs two ICU formatters and the relative-day names, and formatting asks ICU again for
/// every date, so a server keeps one per (locale, time zone) in a ``DateLabels/Cache`` and each remembers
/// the strings it made: a page shows the same few hundred instants view after view. Day boundaries are
/// computed once per page or event as ``Days``, so a list of fifty dates needs no calendar arithmetic.
///
/// A class, immutable: builders pass it along with every cell they build, and copying a struct of a dozen
/// formatters meant a dozen reference counts per copy (profiled: 6 % of building a page from the store).
public final class DateLabels: Sendable {
    public let locale: Locale
    public let timeZone: TimeZone
    /// The BCP 47 tag of the dates' language ("ja-JP") for a `lang` attribute on them; nil for English,
    /// the language of the page around them.
    public let language: String?
    private let calendar: Calendar
    private let time: LockedDateFormatter
    private let weekday: Date.FormatStyle
    private let monthDay: Date.FormatStyle
    private let numericDate: Date.FormatStyle
    private let longMonthDay: Date.FormatStyle
    private let longDate: Date.FormatStyle
    private let full: LockedDateFormatter
    private let today: String
    private let yesterday: String
    private let memo = Memo()

    /// "ja_JP" -> "ja-JP"; nil for English ("en", "en_GB") and for anything that is not letters, digits
    /// and separators.
    public static func languageTag(for identifier: String) -> String? {
        let base = identifier.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        let parts = base.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = parts.first, first.lowercased() != "en",
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        return parts.joined(separator: "-")
    }

    public init(locale: Locale, timeZone: TimeZone) {
        self.locale = locale
        self.timeZone = timeZone
        language = Self.languageTag(for: locale.identifier)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = locale
        self.calendar = calendar
        let base = Date.FormatStyle(locale: locale, calendar: calendar, timeZone: timeZone)
        // The locale's own short time ("14:05", "00:10", "0:10" in Japanese, "2:05 PM"); Date.FormatStyle's
        // `.shortened` drops the leading zero that French or British readers expect.
        time = LockedDateFormatter(locale: locale, timeZone: timeZone, calendar: calendar, dateStyle: .none, timeStyle: .short)
        weekday = base.weekday(.wide)
        monthDay = base.month(.abbreviated).day()
        numericDate = base.year().month(.defaultDigits).day()
        longMonthDay = base.month(.wide).day()
        longDate = base.year().month(.wide).day()
        full = LockedDateFormatter(locale: locale, timeZone: timeZone, calendar: calendar, dateStyle: .full, timeStyle: .short)
        // ICU's named relative days ("Yesterday", "hier", "昨日"), computed once from a fixed pair of dates.
        let anchor = Date(timeIntervalSinceReferenceDate: 0)
        func named(_ days: Double) -> String {
            var style = Date.AnchoredRelativeFormatStyle(
                anchor: anchor, presentation: .named, unitsStyle: .wide, locale: locale, calendar: calendar,
                capitalizationContext: .beginningOfSentence
            )
            style.allowedFields = [.day]
            return style.format(anchor.addingTimeInterval(days * 86_400))
        }
        today = named(0)
        yesterday = named(1)
    }

    /// Where the viewer's recent days begin, for one "now": today, the six days before, and this year.
    public struct Days: Sendable, Equatable {
        public let now: Date
        /// `starts[k]` is the start of the day `k` days before today (k = 0...6); `starts[0]` is today's.
        let starts: [Date]
        let tomorrow: Date
        let thisYear: Range<Date>

        /// The start of today: every label built with these days depends on "now" only through it.
        public var today: Date { starts[0] }
    }

    /// The boundaries of the days around `now`, in the viewer's time zone. Compute once per page or event.
    public func days(at now: Date) -> Days {
        // The same day as the last request's: its boundaries again, without the calendar.
        if let known = memo.days.withLock({ $0 }), now >= known.today, now < known.tomorrow {
            return Days(now: now, starts: known.starts, tomorrow: known.tomorrow, thisYear: known.thisYear)
        }
        let days = computeDays(at: now)
        memo.days.withLock { $0 = days }
        return days
    }

    private func computeDays(at now: Date) -> Days {
        let today = calendar.startOfDay(for: now)
        // From noon, so a day that starts at 01:00 (a change of clocks at midnight) is still found.
        let noon = today.addingTimeInterval(12 * 3_600)
        var starts = [today]
        for back in 1...6 {
            starts.append(calendar.date(byAdding: .day, value: -back, to: noon).map { calendar.startOfDay(for: $0) } ?? today)
        }
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: noon).map { calendar.startOfDay(for: $0) } ?? now
        let year = calendar.dateInterval(of: .year, for: now).map { $0.start..<$0.end } ?? now..<now
        return Days(now: now, starts: starts, tomorrow: tomorrow, thisYear: year)
    }

    /// Calendar days from `date` to `now` in the viewer's time zone (0 today, 1 yesterday, negative ahead).
    public func daysBetween(_ date: Date, and now: Date) -> Int {
        calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now)).day ?? 0
    }

    /// 0 to 6 for the day of `date` counted back from `days.now`, nil for earlier or later days.
    private func recentDay(_ date: Date, _ days: Days) -> Int? {
        guard date < days.tomorrow else { return nil }
        return days.starts.firstIndex { date >= $0 }
    }

    /// The chat list's date: "14:05" today, "Yesterday", the weekday for the last 6 days, "Nov 20" this year,
    /// "2025/11/20" before (each in the viewer's locale: "2:05 PM", "hier", "木曜日", "20 nov.", "20/11/2025").
    public func listDate(_ date: Date, now: Date) -> String { listDate(date, days: days(at: now)) }

    /// ``listDate(_:now:)`` with the day boundaries computed once.
    public func listDate(_ date: Date, days: Days) -> String {
        switch recentDay(date, days) {
        case 0: return timeOfDay(date)
        case 1: return yesterday
        case .some: return memo.weekday(date) { weekday.format(date) }
        case .none:
            return days.thisYear.contains(date) ? memo.monthDay(date) { monthDay.format(date) } : memo.numericDate(date) { numericDate.format(date) }
        }
    }

    /// A conversation's day separator: "Today", "Yesterday", the weekday for the last 6 days,
    /// "November 20" this year, "November 20, 2025" before.
    public func dayLabel(_ date: Date, now: Date) -> String { dayLabel(date, days: days(at: now)) }

    /// ``dayLabel(_:now:)`` with the day boundaries computed once.
    public func dayLabel(_ date: Date, days: Days) -> String {
        switch recentDay(date, days) {
        case 0: return today
        case 1: return yesterday
        case .some: return memo.weekday(date) { weekday.format(date) }
        case .none:
            return days.thisYear.contains(date)
                ? memo.longMonthDay(date) { longMonthDay.format(date) } : memo.longDate(date) { longDate.format(date) }
        }
    }

    /// A message's time ("14:05", "2:05 PM").
    public func timeOfDay(_ date: Date) -> String { memo.time(date) { time.string(from: date) } }

    /// The full date and time, for tooltips.
    public func fullDate(_ date: Date) -> String { memo.full(date) { full.string(from: date) } }

    /// A stable key for the viewer's calendar day of `date` ("2026-11-20"), for grouping and element ids.
    public func dayKey(_ date: Date) -> String {
        memo.dayKey(date) {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
    }

    /// The instant in ISO 8601 (UTC, whole seconds), for `datetime` attributes: "2026-11-20T13:05:00Z".
    public static func iso(_ date: Date) -> String {
        ISOTimestamp.format(date) ?? date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    /// One ``DateLabels`` per (locale, time zone), shared by every request and event of a server.
    public final class Cache: Sendable {
        private let labels = Mutex<[String: DateLabels]>([:])
        /// Past this many pairs the cache starts again: identifiers come from lists, so this is never reached
        /// in use, and it bounds what stored values could make it hold.
        static let capacity = 512

        public init() {}

        /// The labels for these identifiers (UTC when the zone is unknown).
        public func labels(locale identifier: String, timeZone zone: String) -> DateLabels {
            let key = identifier + "\u{1F}" + zone
            if let known = labels.withLock({ $0[key] }) { return known }
            let made = DateLabels(
                locale: Locale(identifier: identifier), timeZone: TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")!
            )
            return labels.withLock { labels in
                if let raced = labels[key] { return raced }
                if labels.count >= Self.capacity { labels.removeAll() }
                labels[key] = made
                return made
            }
        }
    }
}

/// Strings already formatted by one ``DateLabels``, by the whole second they show. The table starts again
/// when it grows past its bound, so memory stays small whatever dates are asked for.
private final class Memo: Sendable {
    /// Which label of a second.
    enum Kind: UInt8 {
        case time, full, dayKey, weekday, monthDay, numericDate, longMonthDay, longDate
    }

    private struct Key: Hashable {
        let kind: Kind
        let second: Int64
    }

    /// Labels kept at most, of all kinds together; past it the memo starts again.
    static let bound = 65_536
    private let labels = Mutex<[Key: String]>([:])
    /// The day boundaries computed last: they hold until the viewer's midnight.
    let days = Mutex<DateLabels.Days?>(nil)

    func time(_ date: Date, _ make: () -> String) -> String { look(date, .time, make) }
    func full(_ date: Date, _ make: () -> String) -> String { look(date, .full, make) }
    func dayKey(_ date: Date, _ make: () -> String) -> String { look(date, .dayKey, make) }
    func weekday(_ date: Date, _ make: () -> String) -> String { look(date, .weekday, make) }
    func monthDay(_ date: Date, _ make: () -> String) -> String { look(date, .monthDay, make) }
    func numericDate(_ date: Date, _ make: () -> String) -> String { look(date, .numericDate, make) }
    func longMonthDay(_ date: Date, _ make: () -> String) -> String { look(date, .longMonthDay, make) }
    func longDate(_ date: Date, _ make: () -> String) -> String { look(date, .longDate, make) }

    /// One table for every kind, keyed by kind and second: a lookup is one hash, with no key path to project.
    private func look(_ date: Date, _ kind: Kind, _ make: () -> String) -> String {
        // A stored date is outside bytes too: one that is not a finite second of a sane range is formatted
        // every time rather than turned into a key.
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return make() }
        let key = Key(kind: kind, second: Int64(seconds))
        if let known = labels.withLock({ $0[key] }) { return known }
        let made = make()
        labels.withLock { labels in
            if labels.count >= Self.bound { labels.removeAll(keepingCapacity: true) }
            labels[key] = made
        }
        return made
    }
}

enum ISOTimestamp {
    /// "2026-11-20T13:05:00Z"; nil outside years 1900...9999, where the general formatter takes over (it
    /// follows the Julian calendar before 1582, which this arithmetic does not).
    static func format(_ date: Date) -> String? {
        let raw = date.timeIntervalSince1970.rounded(.down)
        guard raw.isFinite, raw >= -2_208_988_800, raw < 253_402_300_800 else { return nil }
        let seconds = Int64(raw)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's days_from_civil, inverted.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3_600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A DateFormatter for one locale and time zone, shared safely: formatters are classes with mutable state.
final class LockedDateFormatter: Sendable {
    private let formatter: Mutex<DateFormatter>

    init(locale: Locale, timeZone: TimeZone, calendar: Calendar, dateStyle: DateFormatter.Style, timeStyle: DateFormatter.Style) {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.calendar = calendar
        formatter.dateStyle = dateStyle
        formatter.timeStyle = timeStyle
        self.formatter = Mutex(formatter)
    }

    func string(from date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }
}
