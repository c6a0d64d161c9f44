import Foundation
import ParlorTemplates
import Testing

// Templates come from a folder, partials from its subfolders, and a designer's edits are picked up on reload.

@Suite struct TemplateLibraryTests {
    private final class Folder {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "parlor-templates-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path + "/partials", withIntermediateDirectories: true)
        }
        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func loadsTemplatesAndPartialsFromSubfolders() throws {
        let folder = try Folder()
        try folder.write("page.mustache", "<h1>{{title}}</h1>{{#contacts}}{{> partials/row}}{{/contacts}}")
        try folder.write("partials/row.mustache", "<p>{{name}}</p>")
        try folder.write(".hidden.mustache", "{{broken")
        try folder.write("notes.txt", "{{broken")
        let library = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        #expect(library.templates.render(SamplePage()).string == "<h1>Parlor</h1><p>Ben</p><p>Chloé</p>")
    }

    @Test func aBrokenFileStopsTheLoadWithItsPathAndLine() throws {
        let folder = try Folder()
        try folder.write("page.mustache", "ok\n{{> partials/row}}")
        try folder.write("partials/row.mustache", "\n\n{{contcat}}")
        #expect {
            try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        } throws: { error in
            (error as? TemplateLoadError)?.description == folder.path + "/partials/row.mustache:3: {{contcat}}: no field contcat in SamplePage"
        }
    }

    @Test func aMissingFolderIsReported() {
        #expect(throws: TemplateLoadError.self) {
            try TemplateLibrary(directory: "/nonexistent/parlor-templates", viewModels: [SamplePage.self])
        }
    }

    @Test func reloadPicksUpAnEditAndKeepsTheOldSetWhenTheEditIsBroken() throws {
        let folder = try Folder()
        try folder.write("page.mustache", "v1 {{title}}")
        let library = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        #expect(try library.reloadIfChanged() == false)

        try folder.write("page.mustache", "version 2 {{title}}")
        #expect(try library.reloadIfChanged() == true)
        #expect(library.templates.render(SamplePage()).string == "version 2 Parlor")

        try folder.write("page.mustache", "version 3 {{tilte}}")
        #expect(throws: TemplateLoadError.self) { try library.reloadIfChanged() }
        #expect(library.templates.render(SamplePage()).string == "version 2 Parlor")
        #expect(try library.reloadIfChanged() == false, "the same broken state is reported once")

        try folder.write("page.mustache", "version 4 {{title}}")
        #expect(try library.reloadIfChanged() == true)
        #expect(library.templates.render(SamplePage()).string == "version 4 Parlor")
    }

    /// Libraries opened on the same sources share one compiled set; one opened after an edit (or a change back)
    /// renders what the folder holds then, and a folder that does not compile fails every time it is opened.
    @Test func librariesOfOneFolderRenderWhatItHoldsWhenEachIsOpened() throws {
        let folder = try Folder()
        try folder.write("page.mustache", "first {{title}}")
        let first = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        let again = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        try folder.write("page.mustache", "second {{title}}")
        let edited = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        try folder.write("page.mustache", "first {{title}}")
        let back = try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self])
        #expect([first, again, edited, back].map { $0.templates.render(SamplePage()).string }
            == ["first Parlor", "first Parlor", "second Parlor", "first Parlor"])

        try folder.write("page.mustache", "broken {{tilte}}")
        for _ in 0..<2 {
            #expect(throws: TemplateLoadError.self) { try TemplateLibrary(directory: folder.path, viewModels: [SamplePage.self]) }
        }
    }
}
