// A template bound to view-model types: a flat list of operations with every name already resolved to a
// field and a context depth. Operations are plain values (no reference counting while rendering); the
// program keeps the fields they point at alive.

/// Where a name's value lives: the context `depth` levels up from the root, then a field (and, for
/// dotted names, a chain of fields kept in the program's `paths` table).
struct Lookup: Sendable {
    let depth: Int
    let field: Unmanaged<FieldAccess>
    /// Index into `Program.paths` for dotted names; -1 for a single field.
    let path: Int
}

/// One step of a compiled template.
enum Operation: Sendable {
    case text(start: Int, count: Int)
    case value(Lookup, escape: Bool)
    /// The body is the operations up to `end` (exclusive). `pushes` is false for flags, which keep the context.
    case section(Lookup, inverted: Bool, pushes: Bool, end: Int)
    /// A partial, compiled in place: its operations up to `end`, with an indentation from `Program.indentations` (-1: none).
    case partial(indentation: Int, end: Int)
}

/// A template compiled for one view-model type.
struct Program: Sendable {
    let name: String
    let operations: [Operation]
    /// All literal text, operations refer to ranges of it.
    let text: [UInt8]
    /// Dotted names' field chains.
    let paths: [[Unmanaged<FieldAccess>]]
    let indentations: [[UInt8]]
    /// Keeps every field the operations refer to alive.
    let fields: [FieldAccess]
    /// The deepest context stack its sections push, so the renderer can size the stack once.
    let maxDepth: Int
}
