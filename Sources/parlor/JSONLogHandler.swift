import Foundation
import Logging

/// `--log-format json`: one JSON object per line on standard error, for journald and log shippers:
/// `{"time":…,"level":…,"label":…,"source":…,"message":…}` and each metadata key beside them (a key that
/// would replace one of those is prefixed with `meta.`). Strings are JSON-escaped, so a control character in
/// outside text can neither break the line nor reach a terminal raw.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static let reserved: Set<String> = ["time", "level", "label", "source", "message"]

    func log(event: LogEvent) {
        var line = "{\"time\":" + JSONString.quoted(Self.timestamp(Date()))
        line += ",\"level\":" + JSONString.quoted(event.level.rawValue)
        line += ",\"label\":" + JSONString.quoted(label)
        line += ",\"source\":" + JSONString.quoted(event.source)
        line += ",\"message\":" + JSONString.quoted(event.message.description)
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in all.keys.sorted() {
            let name = Self.reserved.contains(key) ? "meta." + key : key
            line += "," + JSONString.quoted(name) + ":" + JSONString.quoted(all[key]!.description)
        }
        line += "}\n"
        // One write per line, so lines from different threads do not mix.
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
