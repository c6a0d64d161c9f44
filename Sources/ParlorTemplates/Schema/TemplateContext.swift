// How the renderer reads a view model without reflection: each view model lists its fields once, by name
// and key path, and the compiler checks every name a template uses against that list at load time.

/// A value a template can read: a view model, a cell, a nested part of one.
public protocol TemplateContext: Sendable {
    /// The fields templates may name, in any order.
    static var templateFields: TemplateFields<Self> { get }
}

/// A view model that has a template of its own (a page, or a cell pushed alone as a live fragment):
///
///     struct WelcomeCard: Renderable, Hashable {
///         static let templateName = "welcome-card"      // Templates/welcome-card.mustache
///         let name: String
///         static let templateFields = TemplateFields<WelcomeCard>(.text("name", \.name))
///     }
///
/// List it with the library (`TemplateLibrary(directory:viewModels:)`), which compiles its template against
/// its fields at load.
public protocol Renderable: TemplateContext {
    /// The template's name: its path under the templates folder without `.mustache` (`chats`, `partials/message-cell`).
    static var templateName: String { get }
}

/// The fields of one view-model type, built with `TemplateField` factories:
///
///     static let templateFields = TemplateFields<ChatListItemViewModel>(
///         .text("contactName", \.contactName),
///         .flag("isCurrent", \.isCurrent),
///         .object("avatar", \.avatar)
///     )
public struct TemplateFields<Root>: Sendable {
    @usableFromInline let schema: TemplateSchema

    /// The fields, each named once (a name given twice stops the program: it is a programming error).
    public init(_ fields: TemplateField<Root>...) {
        self.init(fields)
    }

    /// The fields from a list, each named once.
    public init(_ fields: [TemplateField<Root>]) {
        var byName: [String: FieldAccess] = [:]
        for field in fields {
            precondition(byName[field.name] == nil, "\(Root.self) declares the template field \(field.name) twice")
            byName[field.name] = field.access
        }
        schema = TemplateSchema(typeName: String(describing: Root.self), fields: byName, current: nil)
    }
}

/// The type-erased field table the compiler works from.
@usableFromInline
struct TemplateSchema: Sendable {
    let typeName: String
    let fields: [String: FieldAccess]
    /// How `{{.}}` reads the context itself; set only for text and number contexts.
    let current: FieldAccess?

    @usableFromInline static let text = TemplateSchema(typeName: "String", fields: [:], current: FieldAccess.textSelf)
    @usableFromInline static let number = TemplateSchema(typeName: "Int", fields: [:], current: FieldAccess.numberSelf)
}
