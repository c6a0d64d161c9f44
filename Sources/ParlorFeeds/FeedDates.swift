import Foundation

/// The dates feeds write, read by hand: RFC 822 (RSS) and RFC 3339 (Atom, JSON Feed, `dc:date`), with the
/// variants real feeds use. Every number is range-checked before arithmetic; what cannot be read is nil.
enum FeedDates {
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        if let first = trimmed.unicodeScalars.first, ("0"..."9").contains(first), trimmed.count >= 10, trimmed.dropFirst(4).first == "-" {
            return rfc3339(trimmed)
        }
        return rfc822(trimmed)
    }

    /// "2003-12-13T18:30:02Z", "2003-12-13t18:30:02.25+01:00", "2003-12-13 18:30:02", "2003-12-13".
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard let year = number(0..<4), bytes.count >= 10, bytes[4] == 0x2D, let month = number(5..<7), bytes[7] == 0x2D, let day = number(8..<10)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var offset = 0
        var at = 10
        if bytes.count > 10 {
            guard [0x54, 0x74, 0x20].contains(bytes[10]), let h = number(11..<13), bytes.count > 13, bytes[13] == 0x3A, let m = number(14..<16)
            else { return nil }
            hour = h
            minute = m
            at = 16
            if bytes.count > 16, bytes[16] == 0x3A {
                guard let s = number(17..<19) else { return nil }
                second = s
                at = 19
                // Fractions of a second: read past, not kept.
                if at < bytes.count, bytes[at] == 0x2E {
                    at += 1
                    while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
                }
            }
            if at < bytes.count {
                switch bytes[at] {
                case 0x5A, 0x7A:  // Z
                    at += 1
                case 0x2B, 0x2D:  // +hh:mm, -hh:mm, +hhmm
                    let sign = bytes[at] == 0x2B ? 1 : -1
                    guard let oh = number((at + 1)..<(at + 3)) else { return nil }
                    var om = 0
                    if at + 3 < bytes.count, bytes[at + 3] == 0x3A {
                        guard let m = number((at + 4)..<(at + 6)) else { return nil }
                        om = m
                        at += 6
                    } else if let m = number((at + 3)..<(at + 5)) {
                        om = m
                        at += 5
                    } else {
                        at += 3
                    }
                    guard oh <= 23, om <= 59 else { return nil }
                    offset = sign * (oh * 3600 + om * 60)
                default:
                    return nil
                }
            }
            guard at == bytes.count else { return nil }
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
        "cet": 1, "cest": 2, "bst": 1,
    ]

    /// "Tue, 10 Jun 2003 04:00:00 GMT", and: no weekday, a full month name, a two-digit year, no seconds, a
    /// numeric or named zone, no zone (UTC), commas and dots where they should not be.
    static func rfc822(_ text: String) -> Date? {
        var words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        if let first = words.first, first.first?.isLetter == true, !months.contains(where: { first.hasPrefix($0) }) { words.removeFirst() }
        guard words.count >= 3 else { return nil }
        var day: Int?, month: Int?
        if let d = Int(words[0]) {
            day = d
            month = months.firstIndex { words[1].hasPrefix($0) }.map { $0 + 1 }
        } else if let d = Int(words[1].trimmingCharacters(in: CharacterSet(charactersIn: "."))) {
            // "Jun 10 2003": month first.
            day = d
            month = months.firstIndex { words[0].hasPrefix($0) }.map { $0 + 1 }
        }
        guard let day, let month, var year = Int(words[2]), words[2].count <= 4 else { return nil }
        if words[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        var hour = 0, minute = 0, second = 0, offset = 0
        if words.count >= 4 {
            let clock = words[3].split(separator: ":").map { Int($0) }
            guard (2...3).contains(clock.count), clock.allSatisfy({ $0 != nil }) else { return nil }
            hour = clock[0]!
            minute = clock[1]!
            second = clock.count == 3 ? clock[2]! : 0
        }
        if words.count >= 5 {
            let zone = words[4]
            if let hours = zones[zone] {
                offset = hours * 3600
            } else if (zone.hasPrefix("+") || zone.hasPrefix("-")), zone.count == 5, let value = Int(zone.dropFirst()) {
                let (h, m) = (value / 100, value % 100)
                guard h <= 23, m <= 59 else { return nil }
                offset = (zone.hasPrefix("+") ? 1 : -1) * (h * 3600 + m * 60)
            } else {
                return nil
            }
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    /// The instant, when every field is within its range (a leap second is read as :59).
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Date? {
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second)
        else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, min(second, 59))
        guard components.isValidDate, let date = components.date else { return nil }
        return date.addingTimeInterval(TimeInterval(-offset))
    }
}
