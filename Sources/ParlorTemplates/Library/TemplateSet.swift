import ByteOutput

/// Every template of an app, parsed once and compiled for the view models that use them. Immutable;
/// `TemplateLibrary` swaps in a new set when templates are reloaded.
public struct TemplateSet: Sendable {
    private let compiled: [ObjectIdentifier: Program]
    /// Templates that no registered view model and no other template uses (likely a misspelt partial).
    public let unusedTemplates: [String]

    /// Parses every source and compiles the template of each view-model type; reports every mistake found.
    public init(sources: [TemplateSource], viewModels: [any Renderable.Type]) throws(TemplateLoadError) {
        var errors: [TemplateError] = []
        var byName: [String: TemplateSource] = [:]
        var tokens: [String: [Token]] = [:]
        for source in sources {
            byName[source.name] = source
            do {
                tokens[source.name] = try TemplateParser.parse(source)
            } catch {
                errors.append(error)
            }
        }
        let compiler = TemplateCompiler(sources: byName, tokens: tokens)
        var compiled: [ObjectIdentifier: Program] = [:]
        for viewModel in viewModels {
            let name = viewModel.templateName
            guard tokens[name] != nil || byName[name] == nil else { continue }  // its syntax error is already listed
            do {
                compiled[ObjectIdentifier(viewModel)] = try compiler.compile(name: name, schema: viewModel.schema)
            } catch {
                if case .mistake(let mistake) = error, !errors.contains(mistake) { errors.append(mistake) }
            }
        }
        guard errors.isEmpty else {
            throw TemplateLoadError(errors: errors.sorted { ($0.origin, $0.line) < ($1.origin, $1.line) })
        }
        self.compiled = compiled
        var used = Set(compiled.values.map(\.name))
        for body in tokens.values { Self.collectPartials(body, into: &used) }
        self.unusedTemplates = byName.keys.filter { !used.contains($0) }.sorted()
    }

    /// Renders a view model through its template, appending to `out`.
    public func render<ViewModel: Renderable>(_ viewModel: ViewModel, into out: inout OutputBuffer) {
        guard let template = compiled[ObjectIdentifier(ViewModel.self)] else {
            preconditionFailure("\(ViewModel.self) was not registered when the templates were loaded")
        }
        Renderer.render(template, viewModel, into: &out)
    }

    /// Renders a view model into a new buffer.
    public func render<ViewModel: Renderable>(_ viewModel: ViewModel, capacity: Int = 4096) -> OutputBuffer {
        var out = OutputBuffer(capacity: capacity)
        render(viewModel, into: &out)
        return out
    }

    /// Whether a view-model type has a compiled template in this set.
    public func contains<ViewModel: Renderable>(_ type: ViewModel.Type) -> Bool {
        compiled[ObjectIdentifier(type)] != nil
    }

    private static func collectPartials(_ tokens: [Token], into names: inout Set<String>) {
        for token in tokens {
            switch token {
            case .partial(let name, _, _): names.insert(name)
            case .section(_, _, let body, _): collectPartials(body, into: &names)
            case .text, .variable: break
            }
        }
    }
}

extension Renderable {
    static var schema: TemplateSchema { templateFields.schema }
}
