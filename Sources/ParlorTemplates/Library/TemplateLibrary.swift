import Synchronization

/// The templates of a running app, loaded from a folder at start-up. With reloading on (for designers),
/// `reloadIfChanged()` re-reads the folder when a file changed and swaps in the new set only if it compiles.
///
///     let library = try TemplateLibrary(directory: "Templates", viewModels: ParlorViewModels.renderable)
///     let html = library.templates.render(viewModel).string
public final class TemplateLibrary: Sendable {
    /// The folder the templates come from.
    public let directory: String
    private let viewModels: [any Renderable.Type]
    private let state: Mutex<State>

    private struct State {
        var templates: TemplateSet
        var entries: [TemplateDirectory.Entry]
    }

    /// Loads and compiles every template for the given view models; throws every mistake with file and line.
    public init(directory: String, viewModels: [any Renderable.Type]) throws(TemplateLoadError) {
        self.directory = directory
        self.viewModels = viewModels
        let folder = TemplateDirectory(path: directory)
        let entries = try folder.entries()
        let templates = try CompiledSets.set(sources: folder.sources(entries), viewModels: viewModels)
        state = Mutex(State(templates: templates, entries: entries))
    }

    /// The templates in use now.
    public var templates: TemplateSet { state.withLock { $0.templates } }

    /// Re-reads the folder if a template was added, removed or changed. Returns whether a new set is in use;
    /// throws (keeping the old set) when the changed templates do not compile.
    @discardableResult
    public func reloadIfChanged() throws(TemplateLoadError) -> Bool {
        let folder = TemplateDirectory(path: directory)
        let entries = try folder.entries()
        guard entries != state.withLock({ $0.entries }) else { return false }
        let templates: TemplateSet
        do {
            templates = try CompiledSets.set(sources: folder.sources(entries), viewModels: viewModels)
        } catch {
            // Remember the broken state so the same error is reported once, not on every poll.
            state.withLock { $0.entries = entries }
            throw error
        }
        state.withLock { $0 = State(templates: templates, entries: entries) }
        return true
    }
}
