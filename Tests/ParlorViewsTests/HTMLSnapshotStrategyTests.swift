import Foundation
import ParlorSnapshotTesting
import SnapshotTesting
import Testing

// The `.html` strategy Parlor offers its users: readable diffs and a recording policy safe for CI.

@Suite struct HTMLSnapshotStrategyTests {
    @Test func normalisedHTMLPutsOneElementPerLineWithSortedAttributes() {
        let html = #"<!doctype html><ul class="x" id="list"><li data-b="2" data-a="1">One &amp; <b>two</b></li><li><input type="text" value="a b" required><br></li></ul>"#
        #expect(HTMLNormalizer.normalize(html) == """
            <!doctype html>
            <ul class="x" id="list">
              <li data-a="1" data-b="2">
                One &amp;
                <b>
                  two
                </b>
              </li>
              <li>
                <input required type="text" value="a b">
                <br>
              </li>
            </ul>

            """)
    }

    @Test func lineBreaksInTextStayVisibleAndRawTextIsKept() {
        let html = "<p class=\"message-body\">Great.\nSee you</p><textarea name=\"body\"><b>not a tag</b></textarea>"
        #expect(HTMLNormalizer.normalize(html) == """
            <p class="message-body">
              Great.↵See you
            </p>
            <textarea name="body">
              <b>not a tag</b>
            </textarea>

            """)
    }

    @Test func escapedMarkupInAttributesDoesNotOpenTags() {
        let html = #"<a href="/u/&quot;&gt;&lt;img src=x&gt;" title='it&#39;s'>x</a>"#
        #expect(HTMLNormalizer.normalize(html) == "<a href=\"/u/&quot;&gt;&lt;img src=x&gt;\" title=\"it&#39;s\">\n  x\n</a>\n")
    }

    @Test func recordingFollowsTheEnvironmentAndNeverRecordsSilentlyOnCI() {
        #expect(SnapshotRecording.mode(environment: [:]) == .missing)
        #expect(SnapshotRecording.mode(environment: ["CI": "true"]) == .never)
        #expect(SnapshotRecording.mode(environment: ["CI": "1", "SNAPSHOT_TESTING_RECORD": "all"]) == .all)
        #expect(SnapshotRecording.mode(environment: ["SNAPSHOT_TESTING_RECORD": "failed"]) == .failed)
        #expect(SnapshotRecording.mode(environment: ["CI": "false"]) == .missing)
    }

    @Test func aMissingSnapshotFailsWithoutBeingWrittenWhenRecordingIsOff() throws {
        let directory = NSTemporaryDirectory() + "parlor-snapshots-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failure = verifySnapshot(of: "<p>hi</p>", as: .html, named: "missing", record: .never, snapshotDirectory: directory)
        #expect(failure?.contains("No reference was found on disk") == true)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty ?? true)
    }

    @Test func aChangedElementShowsAsAOneLineDiff() throws {
        let directory = NSTemporaryDirectory() + "parlor-snapshots-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = verifySnapshot(of: "<ul><li>Ana</li><li>Ben</li></ul>", as: .html, named: "list", record: .all, snapshotDirectory: directory)
        let failure = try #require(verifySnapshot(of: "<ul><li>Ana</li><li>Bea</li></ul>", as: .html, named: "list", record: .never, snapshotDirectory: directory))
        #expect(failure.contains("−    Ben"))
        #expect(failure.contains("+    Bea"))
        #expect(!failure.contains("−    Ana"))
    }

    /// A failed snapshot says what changed: the changed lines with a few around them, not the whole page.
    @Test func aFailureShowsTheChangedLinesWithTheirContextOnly() throws {
        let directory = NSTemporaryDirectory() + "parlor-snapshots-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let items = (1...200).map { "<li id=\"item-\($0)\">Item \($0)</li>" }
        let page = "<ol>" + items.joined() + "</ol>"
        #expect(verifySnapshot(of: page, as: .html, named: "list", record: .all, snapshotDirectory: directory) != nil, "recorded")
        var changed = items
        changed[99] = "<li id=\"item-100\" class=\"is-new\">Item one hundred</li>"
        let failure = try #require(verifySnapshot(
            of: "<ol>" + changed.joined() + "</ol>", as: .html, named: "list", record: .never, snapshotDirectory: directory
        ))
        let lines = failure.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.contains("Item one hundred") } && lines.contains { $0.contains("Item 100") })
        #expect(lines.contains { $0.hasPrefix("@@") }, "a hunk header says where")
        #expect(!failure.contains("Item 1\n") && !failure.contains("Item 200"), "far lines are left out")
        #expect(lines.count < 40, "\(lines.count) lines for one changed item")
    }
}
