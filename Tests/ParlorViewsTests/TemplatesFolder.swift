import Foundation
import ParlorTemplates
import ParlorViews

/// The repository's Templates/ folder, found from this file's path so tests run from any directory.
enum TemplatesFolder {
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Templates").path
    }()

    static func load() throws -> TemplateSet {
        try TemplateLibrary(directory: path, viewModels: ParlorViewModels.renderable).templates
    }
}
