import Logging
import Synchronization

/// Every line a test's Parlor logs, message and metadata, as an operator's log would hold them: what the log scan
/// of ``RunningParlor`` reads.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// A handler writing into this log, at `level` and above.
    func handler(level: Logger.Level = .info) -> some LogHandler {
        Handler(log: self, logLevel: level)
    }

    /// The lines that show a path of a route whose path carries a secret other than as its pattern: each pattern's
    /// literal start ("/join/") must be followed by the pattern's placeholder wherever it is written.
    func linesShowingSecrets(of patterns: [String]) -> [String] {
        let shown = patterns.compactMap { pattern -> (start: String, pattern: String)? in
            guard let brace = pattern.firstIndex(of: "{") else { return nil }
            return (String(pattern[..<brace]), pattern)
        }
        return all.filter { line in
            shown.contains { start, pattern in
                line.components(separatedBy: start).dropFirst().contains { !(start + $0).hasPrefix(pattern) }
            }
        }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            log.append(([event.level.rawValue, "\(event.message)"] + fields).joined(separator: " "))
        }
    }
}
