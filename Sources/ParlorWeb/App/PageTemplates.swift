import Logging
import ParlorTemplates
import ParlorViews

/// The templates `parlor serve` renders with. With `--reload-templates` (for designers) every page
/// first checks the folder and swaps in changed templates; a template that no longer compiles is
/// logged with its file and line and the last good set keeps serving.
public struct PageTemplates: Sendable {
    public let library: TemplateLibrary
    let reloads: Bool
    let logger: Logger

    /// Loads every template; throws every mistake with its file and line, which stops start-up.
    public init(folder: String, reloads: Bool, logger: Logger) throws(TemplateLoadError) {
        library = try TemplateLibrary(directory: folder, viewModels: ParlorViewModels.renderable)
        self.reloads = reloads
        self.logger = logger
    }

    /// The set to render this page with.
    public var current: TemplateSet {
        if reloads {
            do {
                if try library.reloadIfChanged() { logger.notice("templates reloaded", metadata: ["folder": "\(library.directory)"]) }
            } catch {
                logger.error("templates not reloaded; the last good ones stay in use\n\(error.description)")
            }
        }
        return library.templates
    }
}
