import Logging
import Synchronization

/// Keeps every log line a test server writes, so tests can check what is (and is not) logged.
final class LogRecorder: Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lines = Mutex<[Line]>([])

    var all: [Line] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    func record(_ line: Line) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.record(Line(level: event.level, message: "\(event.message)",
                                 metadata: merged.mapValues { "\($0)" }))
        }
    }
}
