import Synchronization

/// A request's id, unique within a run and unlikely to repeat across runs: "3f9a-17".
/// Kept as numbers and formatted only when written (a log line, an error page).
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
    let run: UInt16
    let number: UInt64

    /// An id for requests made by hand in tests.
    public static let test = RequestID(run: 0, number: 0)

    public var description: String { String(run, radix: 16) + "-" + String(number, radix: 36) }
}

/// Hands out request ids.
final class RequestIDs: Sendable {
    private let run = UInt16.random(in: .min ... .max)
    private let counter = Atomic<UInt64>(0)

    func next() -> RequestID {
        RequestID(run: run, number: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}
