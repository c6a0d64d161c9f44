import Foundation
import SnapshotTesting

/// When snapshots are written. `SNAPSHOT_TESTING_RECORD` (`all`, `failed`, `missing`, `never`) decides, as in
/// swift-snapshot-testing; without it, missing snapshots are recorded locally, but never when `CI` is set:
/// there a missing snapshot fails instead of being recorded silently and passing next time.
public enum SnapshotRecording {
    /// The recording mode for `environment` (the process's by default):
    ///
    ///     SnapshotRecording.mode(environment: ["CI": "true"])                       // .never
    ///     SnapshotRecording.mode(environment: ["SNAPSHOT_TESTING_RECORD": "failed"]) // .failed
    public static func mode(environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapshotTestingConfiguration.Record {
        if let value = environment["SNAPSHOT_TESTING_RECORD"], let mode = SnapshotTestingConfiguration.Record(rawValue: value) {
            return mode
        }
        if let ci = environment["CI"], !ci.isEmpty, ci.lowercased() != "false", ci != "0" {
            return .never
        }
        return .missing
    }
}

/// Asserts that `value`'s HTML matches the stored snapshot named `name`, following `SnapshotRecording`: the
/// first run records it under `__Snapshots__/` (never when `CI` is set), later runs compare, and a failure
/// shows the changed lines with their context.
///
///     let templates = try TemplateLibrary(directory: "Templates", viewModels: ParlorViewModels.renderable).templates
///     assertHTMLSnapshot(of: badge, as: .html(templates), named: "unread-badge-twelve")
public func assertHTMLSnapshot<Value>(
    of value: @autoclosure () throws -> Value,
    as strategy: Snapshotting<Value, String>,
    named name: String,
    record: SnapshotTestingConfiguration.Record? = nil,
    fileID: StaticString = #fileID,
    file filePath: StaticString = #filePath,
    testName: String = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    assertSnapshot(
        of: try value(),
        as: strategy,
        named: name,
        record: record ?? SnapshotRecording.mode(),
        fileID: fileID,
        file: filePath,
        testName: testName,
        line: line,
        column: column
    )
}
