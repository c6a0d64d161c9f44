import Foundation
import HTTPTestSupport
import Testing

/// Two people chat in two real headless Chromium browsers against the real `parlor` binary
/// (Tests/Browser/two_people_chat.py, driven with selenium). Screenshots of every step are kept in
/// `.build/browser-artifacts`. Needs `bash .ci/install-packages --tests` (chromium, its driver, selenium).
@Suite struct BrowserTests {
    static let python = ServeCommandTests.repository.appendingPathComponent(".build/browser-venv/bin/python").path
    static let artifacts = ServeCommandTests.repository.appendingPathComponent(".build/browser-artifacts").path

    @Test(.timeLimit(.minutes(5))) func twoPeopleChatLiveAcrossARestartAndWithParlorBot() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "the browser tests need chromium, chromium-driver and selenium: run `bash .ci/install-packages --tests`"
        )
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let script = ServeCommandTests.repository.appendingPathComponent("Tests/Browser/two_people_chat.py").path
        let child = try ChildProcess(executable: Self.python, arguments: [
            script, ServeCommandTests.executable.path, ServeCommandTests.repository.path, Self.artifacts,
        ])
        // Read its output while waiting, so a full pipe never stalls it.
        var output = ""
        let deadline = ContinuousClock.now + .seconds(240)
        var status: Int32?
        while status == nil && ContinuousClock.now < deadline {
            output += child.readErrors()
            status = await child.waitForExit(within: 0.2)
        }
        if status == nil {
            child.send(SIGKILL)
            _ = await child.waitForExit(within: 10)
        }
        output += child.readErrors()
        #expect(status == 0, "browser scenario failed:\n\(output)")
        #expect(output.contains("all steps passed"))
        for step in ["signed-up", "message-read", "edited", "toast-and-badge", "hostile-text", "after-restart", "parlor-bot"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }
}
