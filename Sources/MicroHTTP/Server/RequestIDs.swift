import Synchronization

/// Short request ids unique within a run and unlikely to repeat across runs: "3f9a-17".
final class RequestIDs: Sendable {
    private let prefix = String(UInt16.random(in: .min ... .max), radix: 16)
    private let counter = Atomic<UInt64>(0)

    func next() -> String {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 36)
    }
}
