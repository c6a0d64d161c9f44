// A template bound to view-model types: every name already resolved to a field and a context depth.

/// One step of a compiled template.
indirect enum Node: Sendable {
    case text([UInt8])
    case value(Lookup, escape: Bool)
    /// `pushes` is false for flags, whose sections keep the current context.
    case section(Lookup, body: Block, inverted: Bool, pushes: Bool)
    /// A partial, compiled in place for the contexts of its include site.
    case partial(Block)
}

/// Nodes that share an indentation (that of the standalone partials they sit in, if any).
struct Block: Sendable {
    let nodes: [Node]
    /// Prefix for every line after the first; nil or empty when the block is not inside an indented partial.
    let indentation: [UInt8]?
}

/// Where a name's value lives: the context `depth` levels up from the root, then a path of fields
/// (more than one for dotted names).
struct Lookup: Sendable {
    let depth: Int
    let path: [FieldAccess]
}

/// A template compiled for one view-model type.
struct CompiledTemplate: Sendable {
    let name: String
    let root: Block
    /// The deepest context stack its sections push, so the renderer can size the stack once.
    let maxDepth: Int
}
