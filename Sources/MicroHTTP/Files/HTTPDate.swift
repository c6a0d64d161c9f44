#if canImport(Glibc)
import Glibc
#endif

/// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), written and read without the C locale.
///
/// Dates arrive in request headers, so ``parse(_:)`` reads exactly the fixed layout, digit by digit,
/// with every field range-checked before any arithmetic: no text can make it overflow.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// Days before the first of each month in a common year.
    private static let daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]

    /// Seconds since 1970 as an IMF-fixdate; years outside 1970...9999 are clamped to that range, so a
    /// file dated by a broken clock still gets a date every client can read.
    static func format(_ seconds: Int) -> String {
        let bounded = min(max(seconds, 0), latest)
        var time = time_t(bounded)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = weekdays[Int(parts.tm_wday) % 7], month = months[Int(parts.tm_mon) % 12]
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(Int(parts.tm_year) + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// 9999-12-31 23:59:59 GMT, the last moment a four-digit year can say.
    static let latest = 253_402_300_799

    /// Seconds since 1970 for an IMF-fixdate, or nil for anything else (which HTTP says to ignore).
    static func parse(_ text: String) -> Int? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, always.
        let bytes = Array(text.utf8)
        guard bytes.count == 29,
              bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
              bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
              bytes[22] == UInt8(ascii: ":"), bytes[25...] == Array(" GMT".utf8)[...],
              let weekday = weekdays.firstIndex(where: { $0.utf8.elementsEqual(bytes[0..<3]) }),
              let month = months.firstIndex(where: { $0.utf8.elementsEqual(bytes[8..<11]) }),
              let day = digits(bytes[5..<7]), let year = digits(bytes[12..<16]),
              let hour = digits(bytes[17..<19]), let minute = digits(bytes[20..<22]), let second = digits(bytes[23..<25]),
              year >= 1970, hour < 24, minute < 60, second < 61,
              day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        // 1 January 1970 was a Thursday; a date whose weekday disagrees is not one date.
        guard (days + 4) % 7 == weekday else { return nil }
        return days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59)
    }

    /// The value of two or four ASCII digits (at most 9999, so no arithmetic on it can overflow).
    private static func digits(_ slice: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in slice {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 1: isLeap(year) ? 29 : 28
        case 3, 5, 8, 10: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date; `month` counts from 0. Only for years 1970...9999.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let yearsBefore = year - 1
        let leapDaysBefore = yearsBefore / 4 - yearsBefore / 100 + yearsBefore / 400 - 477  // 477 leap days before 1970
        var days = (year - 1970) * 365 + leapDaysBefore + daysBeforeMonth[month] + day - 1
        if month > 1, isLeap(year) { days += 1 }
        return days
    }
}
