import Foundation
import HTTPTestSupport
import Testing

/// How `parlor serve` treats its templates: compiled at start-up, reloaded for designers, shown in the gallery.
@Suite struct TemplateServingTests {
    /// A private copy of the repository's templates that a test may change.
    final class TemplatesCopy {
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-templates-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: ServeCommandTests.repository.appendingPathComponent("Templates"), to: folder)
        }

        func write(_ text: String, to name: String) throws {
            let file = folder.appendingPathComponent(name)
            try text.write(to: file, atomically: false, encoding: .utf8)
            // Template changes are noticed by modification time and size; make the time differ for sure.
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
        }

        func read(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aMisspeltNameStopsStartUpWithTheFileAndLine() async throws {
        let templates = try TemplatesCopy()
        let toast = try templates.read("partials/toast.mustache")
        try templates.write("first line\n" + toast.replacingOccurrences(of: "{{", with: "{{contcat}}{{", options: [], range: toast.range(of: "{{")), to: "partials/toast.mustache")

        let parlor = try ServeCommandTests.RunningParlor(arguments: [], templates: templates.folder.path)
        let status = try await parlor.exitStatus()
        #expect(status != 0)
        #expect(parlor.log.contains("partials/toast.mustache:2"))
        #expect(parlor.log.contains("contcat"))
        #expect(!parlor.log.contains("listening"))
    }

    @Test func theGalleryIsServedOnlyWhenEnabled() async throws {
        let off = try ServeCommandTests.RunningParlor(arguments: [])
        try await off.waitUntilListening()
        #expect(try await RawClient(port: off.port).exchange("GET", "/gallery").status == 404)
        #expect(try await off.terminate() == 0)

        let on = try ServeCommandTests.RunningParlor(arguments: ["--gallery"])
        try await on.waitUntilListening()
        let page = try await RawClient(port: on.port).exchange("GET", "/gallery")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("fixture-chat-list-loaded"))
        #expect(page.text.contains("fixture-hostile-chats-page"))
        #expect(!page.text.contains("<script>alert"))
        #expect(try await on.terminate() == 0)
    }

    @Test func reloadingPicksUpAChangedTemplateAndKeepsTheLastGoodOneOnAMistake() async throws {
        let templates = try TemplatesCopy()
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--gallery", "--reload-templates"], templates: templates.folder.path)
        try await parlor.waitUntilListening()
        let client = try RawClient(port: parlor.port)
        #expect(try await client.exchange("GET", "/gallery").text.contains("data-designer-mark") == false)

        let toast = try templates.read("partials/toast.mustache")
        try templates.write(toast.replacingOccurrences(of: "<", with: "<span data-designer-mark></span><", options: [], range: toast.range(of: "<")), to: "partials/toast.mustache")
        #expect(try await client.exchange("GET", "/gallery").text.contains("data-designer-mark"))

        try templates.write("{{#unclosed}}\n", to: "partials/toast.mustache")
        let afterMistake = try await client.exchange("GET", "/gallery")
        #expect(afterMistake.status == 200)
        #expect(afterMistake.text.contains("data-designer-mark"))

        #expect(try await parlor.terminate() == 0)
        #expect(parlor.log.contains("templates reloaded"))
        #expect(parlor.log.contains("partials/toast.mustache:1"))
    }
}
