// Binds parsed templates to view-model schemas. Every name is checked here, at start-up, so that a
// misspelt field stops the server with file and line instead of rendering as silent blank text.

struct TemplateCompiler {
    let sources: [String: TemplateSource]
    let tokens: [String: [Token]]

    /// Why compiling stopped: a mistake to report, or a partial whose own syntax error is reported already.
    enum Failure: Error {
        case mistake(TemplateError)
        case brokenPartial
    }

    private static let partialNestingLimit = 32

    /// Compiles the template `name` for contexts of `schema`.
    func compile(name: String, schema: TemplateSchema) throws(Failure) -> Program {
        guard let body = tokens[name], let source = sources[name] else {
            throw .mistake(TemplateError(origin: name, line: 0, message: "no template named \(name) for \(schema.typeName)"))
        }
        var program = ProgramBuilder()
        try compile(body, source: source, scopes: [schema], indentation: nil, partials: [name], into: &program)
        return program.finish(name: name)
    }

    /// Accumulates operations, text and tables while compiling.
    private struct ProgramBuilder {
        var operations: [Operation] = []
        var text: [UInt8] = []
        var paths: [[Unmanaged<FieldAccess>]] = []
        var indentations: [[UInt8]] = []
        var fields: [FieldAccess] = []
        var maxDepth = 0
        /// Set while the current block is inside an indented partial: lines must stay separate operations.
        var keepsLinesApart = false
        /// Text may only merge into operations from here on (not into a closed or opening section's body).
        var mergeBarrier = 0

        mutating func appendText(_ bytes: [UInt8]) {
            if !keepsLinesApart, operations.count > mergeBarrier, case .text(let start, let count)? = operations.last, start + count == text.count {
                operations[operations.count - 1] = .text(start: start, count: count + bytes.count)
            } else {
                operations.append(.text(start: text.count, count: bytes.count))
            }
            text += bytes
        }

        mutating func lookup(depth: Int, path: [FieldAccess]) -> Lookup {
            fields += path
            guard path.count > 1 else { return Lookup(depth: depth, field: .passUnretained(path[0]), path: -1) }
            paths.append(path.map { .passUnretained($0) })
            return Lookup(depth: depth, field: .passUnretained(path[path.count - 1]), path: paths.count - 1)
        }

        func finish(name: String) -> Program {
            Program(name: name, operations: operations, text: text, paths: paths, indentations: indentations, fields: fields, maxDepth: maxDepth)
        }
    }

    private func compile(
        _ body: [Token],
        source: TemplateSource,
        scopes: [TemplateSchema],
        indentation: [UInt8]?,
        partials: [String],
        into program: inout ProgramBuilder
    ) throws(Failure) {
        program.maxDepth = max(program.maxDepth, scopes.count - 1)
        let keptLinesApart = program.keepsLinesApart
        program.keepsLinesApart = !(indentation?.isEmpty ?? true)
        defer { program.keepsLinesApart = keptLinesApart }
        for token in body {
            switch token {
            case .text(let bytes):
                program.appendText(bytes)

            case .variable(let name, let escaped, let offset):
                let (depth, path) = try resolve(name, scopes: scopes, source: source, offset: offset)
                let field = path[path.count - 1]
                switch field.kind {
                case .object, .list:
                    throw error(source, offset, "{{\(name)}} is \(field.kind == .list ? "a list" : "a view model"), not text; use {{#\(name)}}...{{/\(name)}}")
                case .text where !escaped:
                    throw error(source, offset, "{{{\(name)}}} would print user text without escaping; use {{\(name)}}, or declare the field as markup if Parlor builds it")
                case .text, .markup, .number, .flag:
                    program.operations.append(.value(program.lookup(depth: depth, path: path), escape: escaped))
                }

            case .section(let name, let inverted, let sectionBody, let offset):
                let (depth, path) = try resolve(name, scopes: scopes, source: source, offset: offset)
                let field = path[path.count - 1]
                if !field.isOptional, field.kind == .text || field.kind == .number || field.kind == .markup {
                    throw error(source, offset, "{{\(inverted ? "^" : "#")\(name)}} is over a value that is always set, so it would \(inverted ? "never" : "always") show; use a flag or an optional")
                }
                if inverted, !field.isOptional, field.kind == .object {
                    throw error(source, offset, "{{^\(name)}} is over a view model that is always set, so it would never show")
                }
                let pushes = !inverted && field.kind != .flag
                var innerScopes = scopes
                if pushes, let child = field.child { innerScopes.append(child()) }
                let lookup = program.lookup(depth: depth, path: path)
                let index = program.operations.count
                program.operations.append(.text(start: 0, count: 0))  // replaced once the body's end is known
                program.mergeBarrier = program.operations.count
                try compile(sectionBody, source: source, scopes: innerScopes, indentation: indentation, partials: partials, into: &program)
                program.operations[index] = .section(lookup, inverted: inverted, pushes: pushes, end: program.operations.count)
                program.mergeBarrier = program.operations.count

            case .partial(let name, let partialIndentation, let offset):
                guard let partialSource = sources[name] else {
                    throw error(source, offset, "no partial named \(name) (looked for \(name).mustache)")
                }
                guard let partialBody = tokens[name] else { throw .brokenPartial }
                guard partials.count < Self.partialNestingLimit, !partials.contains(name) else {
                    throw error(source, offset, "partial \(name) includes itself (\(partials.joined(separator: " > ")) > \(name))")
                }
                var combined = indentation
                if let partialIndentation { combined = (indentation ?? []) + partialIndentation }
                var indentationIndex = -1
                if let combined, !combined.isEmpty {
                    program.indentations.append(combined)
                    indentationIndex = program.indentations.count - 1
                }
                let index = program.operations.count
                program.operations.append(.text(start: 0, count: 0))
                program.mergeBarrier = program.operations.count
                try compile(partialBody, source: partialSource, scopes: scopes, indentation: combined, partials: partials + [name], into: &program)
                program.operations[index] = .partial(indentation: indentationIndex, end: program.operations.count)
                program.mergeBarrier = program.operations.count
            }
        }
    }

    /// Finds the field a name refers to, the way Mustache looks names up: the innermost context that has
    /// the first component, then each further component inside the previous one.
    private func resolve(
        _ name: TagName,
        scopes: [TemplateSchema],
        source: TemplateSource,
        offset: Int
    ) throws(Failure) -> (depth: Int, path: [FieldAccess]) {
        let innermost = scopes.count - 1
        if name.isImplicitIterator {
            guard let current = scopes[innermost].current else {
                throw error(source, offset, "{{.}} here is a \(scopes[innermost].typeName), not text; name one of its fields")
            }
            return (innermost, [current])
        }
        let first = name.components[0]
        let candidates = name.isAnchored ? [innermost] : Array((0...innermost).reversed())
        guard let depth = candidates.first(where: { scopes[$0].fields[first] != nil }),
              let head = scopes[depth].fields[first]
        else {
            let visible = candidates.map { scopes[$0].typeName }.joined(separator: ", ")
            throw error(source, offset, "{{\(name)}}: no field \(first) in \(visible)")
        }
        if head.isOptional, let outer = (0..<depth).first(where: { scopes[$0].fields[first] != nil }) {
            throw error(source, offset, "\(first) is optional in \(scopes[depth].typeName) and also a field of \(scopes[outer].typeName); when it is nil Mustache would read the outer one: rename one of them")
        }
        var path = [head]
        var field = head
        var owner = scopes[depth].typeName
        for component in name.components.dropFirst() {
            guard field.kind == .object, let child = field.child?() else {
                throw error(source, offset, "{{\(name)}}: \(owner).\(path.count == 1 ? first : component) is not a view model, so it has no field \(component)")
            }
            guard let next = child.fields[component] else {
                throw error(source, offset, "{{\(name)}}: no field \(component) in \(child.typeName)")
            }
            path.append(next)
            field = next
            owner = child.typeName
        }
        return (depth, path)
    }

    private func error(_ source: TemplateSource, _ offset: Int, _ message: String) -> Failure {
        .mistake(TemplateError(origin: source.origin, line: source.line(at: offset), message: message))
    }
}
