import Foundation

/// Time zones under their cities' current names. The system's list still has zones whose city was renamed
/// under the old name (Asia/Calcutta, Europe/Kiev); Settings offers the current one (CLDR's: Asia/Kolkata,
/// Europe/Kyiv), and a person who has the old one sees it chosen under the new name.
public enum TimeZoneNames {
    /// Old identifier -> current identifier, for cities that were renamed (not for zones merged into another).
    public static let renamed: [String: String] = [
        "America/Godthab": "America/Nuuk",
        "Asia/Ashkhabad": "Asia/Ashgabat",
        "Asia/Calcutta": "Asia/Kolkata",
        "Asia/Chongking": "Asia/Chongqing",
        "Asia/Dacca": "Asia/Dhaka",
        "Asia/Katmandu": "Asia/Kathmandu",
        "Asia/Macao": "Asia/Macau",
        "Asia/Rangoon": "Asia/Yangon",
        "Asia/Saigon": "Asia/Ho_Chi_Minh",
        "Asia/Thimbu": "Asia/Thimphu",
        "Asia/Ujung_Pandang": "Asia/Makassar",
        "Asia/Ulan_Bator": "Asia/Ulaanbaatar",
        "Atlantic/Faeroe": "Atlantic/Faroe",
        "Europe/Kiev": "Europe/Kyiv",
        "Pacific/Enderbury": "Pacific/Kanton",
        "Pacific/Ponape": "Pacific/Pohnpei",
        "Pacific/Truk": "Pacific/Chuuk",
    ]

    /// `identifier` under its city's current name, when the system knows that name.
    public static func current(_ identifier: String) -> String {
        guard let current = renamed[identifier], TimeZone(identifier: current) != nil else { return identifier }
        return current
    }

    /// The zones to offer from the system's `known` ones: current names, each zone once, sorted.
    public static func offered(_ known: [String]) -> [String] {
        Set(known.map(current)).sorted()
    }
}
