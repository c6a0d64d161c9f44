import Synchronization

/// The template sets compiled in this process, by the sources and view models they were compiled from.
///
/// A running Parlor compiles its folder once, but one process can hold many Parlors (the tests start hundreds,
/// each with the same folder), and compiling the folder took a few milliseconds of CPU each time: together the
/// largest single cost of the test suite's start. A set is a value that never changes, so the same sources give
/// the same set. Only a few are kept (designers reloading make a new one each time); a set that fails to
/// compile is never kept, so its errors are reported each time.
enum CompiledSets {
    private struct Key: Hashable {
        let sources: [Source]
        let viewModels: [ObjectIdentifier]
    }

    /// What a set is compiled from: the origin too, since error messages name it.
    private struct Source: Hashable {
        let name: String
        let origin: String
        let text: String
    }

    private static let limit = 4
    private static let kept = Mutex<[Key: TemplateSet]>([:])

    static func set(sources: [TemplateSource], viewModels: [any Renderable.Type]) throws(TemplateLoadError) -> TemplateSet {
        let key = Key(
            sources: sources.map { Source(name: $0.name, origin: $0.origin, text: $0.text) },
            viewModels: viewModels.map { ObjectIdentifier($0) })
        if let set = kept.withLock({ $0[key] }) { return set }
        let set = try TemplateSet(sources: sources, viewModels: viewModels)
        kept.withLock { kept in
            if kept.count >= limit { kept.removeAll() }
            kept[key] = set
        }
        return set
    }
}
