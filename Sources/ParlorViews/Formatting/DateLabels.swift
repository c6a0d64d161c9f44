import Foundation
import Synchronization

/// Every date Parlor shows, formatted for one viewer's locale and time zone relative to an injected "now".
/// The same inputs always give the same text, which is what makes HTML snapshots possible.
public struct DateLabels: Sendable {
    public let locale: Locale
    public let timeZone: TimeZone
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

    public init(locale: Locale, timeZone: TimeZone) {
        self.locale = locale
        self.timeZone = timeZone
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

    /// Calendar days from `date` to `now` in the viewer's time zone (0 today, 1 yesterday, negative ahead).
    public func daysBetween(_ date: Date, and now: Date) -> Int {
        calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: now)).day ?? 0
    }

    /// The chat list's date: "14:05" today, "Yesterday", the weekday for the last 6 days, "Nov 20" this year,
    /// "2025/11/20" before (each in the viewer's locale: "2:05 PM", "hier", "木曜日", "20 nov.", "20/11/2025").
    public func listDate(_ date: Date, now: Date) -> String {
        switch daysBetween(date, and: now) {
        case 0: return time.string(from: date)
        case 1: return yesterday
        case 2...6: return weekday.format(date)
        default:
            return sameYear(date, now) ? monthDay.format(date) : numericDate.format(date)
        }
    }

    /// A conversation's day separator: "Today", "Yesterday", the weekday for the last 6 days,
    /// "November 20" this year, "November 20, 2025" before.
    public func dayLabel(_ date: Date, now: Date) -> String {
        switch daysBetween(date, and: now) {
        case 0: return today
        case 1: return yesterday
        case 2...6: return weekday.format(date)
        default:
            return sameYear(date, now) ? longMonthDay.format(date) : longDate.format(date)
        }
    }

    /// A message's time ("14:05", "2:05 PM").
    public func timeOfDay(_ date: Date) -> String { time.string(from: date) }

    /// The full date and time, for tooltips.
    public func fullDate(_ date: Date) -> String { full.string(from: date) }

    /// A stable key for the viewer's calendar day of `date` ("2026-11-20"), for grouping and element ids.
    public func dayKey(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The instant in ISO 8601 (UTC), for `datetime` attributes.
    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    private func sameYear(_ date: Date, _ now: Date) -> Bool {
        calendar.component(.year, from: date) == calendar.component(.year, from: now)
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
