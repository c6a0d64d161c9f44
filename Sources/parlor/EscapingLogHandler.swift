import Logging
import MicroHTTP

/// The log handler `parlor serve` writes with: standard error, one event per line. Whatever a module
/// logs, a control character never reaches the terminal raw; the modules escape the outside text they
/// log themselves, and this is the last guard.
struct EscapingLogHandler: LogHandler {
    private var inner: StreamLogHandler

    init(label: String, level: Logger.Level) {
        inner = StreamLogHandler.standardError(label: label)
        inner.logLevel = level
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.controlsEscapedForLog)"
        event.metadata = event.metadata?.mapValues { .string($0.description.controlsEscapedForLog) }
        inner.log(event: event)
    }
}
