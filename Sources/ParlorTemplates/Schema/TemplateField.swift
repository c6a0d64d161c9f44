import ByteOutput

/// One named field of a view model, read through a key path. The name must be the property's own name:
/// the test oracle reads view models by reflection. Stored properties are read in place, at their offset
/// in the view model, without copying; other key paths fall back to applying the key path.
public struct TemplateField<Root>: Sendable {
    @usableFromInline let name: String
    @usableFromInline let access: FieldAccess

    @usableFromInline
    init(name: String, access: FieldAccess) {
        self.name = name
        self.access = access
    }
}

/// Finds a field's value inside a context given a raw pointer to the context.
@usableFromInline
struct FieldReader<Root, Value>: Sendable {
    @usableFromInline let keyPath: KeyPath<Root, Value> & Sendable
    /// The stored property's byte offset in `Root`, when the key path is one.
    @usableFromInline let offset: Int?

    @inlinable
    init(_ keyPath: KeyPath<Root, Value> & Sendable) {
        self.keyPath = keyPath
        self.offset = MemoryLayout<Root>.offset(of: keyPath)
    }

    /// Calls `body` with a pointer to the value, valid only inside the call.
    @inlinable
    func withValue<Result>(in context: UnsafeRawPointer, _ body: (UnsafePointer<Value>) -> Result) -> Result {
        if let offset {
            return body((context + offset).assumingMemoryBound(to: Value.self))
        }
        return withUnsafePointer(to: context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]) { body($0) }
    }
}

extension TemplateField {
    /// Text from a person or formatted by a builder; always HTML-escaped.
    @inlinable
    public static func text(_ name: String, _ keyPath: KeyPath<Root, String> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .text, isOptional: false, child: { .text },
            write: { context, out, escape in
                reader.withValue(in: context) { out.appendText($0, escape: escape) }
                return true
            },
            truth: { _ in .truthy },
            enter: { context, body in reader.withValue(in: context) { body(UnsafeRawPointer($0)) } }
        ))
    }

    /// Optional text: a section over it shows only when it is set, with `{{.}}` the text.
    @inlinable
    public static func text(_ name: String, _ keyPath: KeyPath<Root, String?> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .text, isOptional: true, child: { .text },
            write: { context, out, escape in
                reader.withValue(in: context) { value in
                    guard value.pointee != nil else { return false }
                    // A single-payload Optional keeps its payload at offset 0.
                    out.appendText(UnsafeRawPointer(value).assumingMemoryBound(to: String.self), escape: escape)
                    return true
                }
            },
            truth: { context in reader.withValue(in: context) { $0.pointee == nil ? .missing : .truthy } },
            enter: { context, body in
                reader.withValue(in: context) { value in
                    guard value.pointee != nil else { return }
                    body(UnsafeRawPointer(value))
                }
            }
        ))
    }

    /// Markup that Parlor built and trusts (a rendered fragment); the only kind `{{{name}}}` may print.
    @inlinable
    public static func markup(_ name: String, _ keyPath: KeyPath<Root, String> & Sendable) -> Self {
        let text = Self.text(name, keyPath).access
        return Self(name: name, access: FieldAccess(
            kind: .markup, isOptional: false, child: text.child, write: text.write, truth: text.truth, enter: text.enter
        ))
    }

    /// A number, printed in decimal. Builders usually pre-format counts as text instead ("99+").
    @inlinable
    public static func number(_ name: String, _ keyPath: KeyPath<Root, Int> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .number, isOptional: false, child: { .number },
            write: { context, out, _ in
                reader.withValue(in: context) { out.append(String($0.pointee)) }
                return true
            },
            truth: { _ in .truthy },
            enter: { context, body in reader.withValue(in: context) { body(UnsafeRawPointer($0)) } }
        ))
    }

    /// A flag: a section over it shows when true, an inverted one when false. Printed, it reads "true"/"false".
    @inlinable
    public static func flag(_ name: String, _ keyPath: KeyPath<Root, Bool> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .flag, isOptional: false, child: nil,
            write: { context, out, _ in
                if reader.withValue(in: context, { $0.pointee }) { out.append("true") } else { out.append("false") }
                return true
            },
            truth: { context in reader.withValue(in: context) { $0.pointee } ? .truthy : .falsy },
            enter: { _, _ in }
        ))
    }

    /// A nested view model; `{{#name}}...{{/name}}` makes its fields visible, `{{name.field}}` reads one.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, Child> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .object, isOptional: false, child: { Child.templateFields.schema },
            write: { _, _, _ in false },
            truth: { _ in .truthy },
            enter: { context, body in reader.withValue(in: context) { body(UnsafeRawPointer($0)) } }
        ))
    }

    /// An optional nested view model; sections over it show only when it is set.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, Child?> & Sendable) -> Self {
        let reader = FieldReader(keyPath)
        return Self(name: name, access: FieldAccess(
            kind: .object, isOptional: true, child: { Child.templateFields.schema },
            write: { _, _, _ in false },
            truth: { context in reader.withValue(in: context) { $0.pointee == nil ? .missing : .truthy } },
            enter: { context, body in
                reader.withValue(in: context) { value in
                    guard value.pointee != nil else { return }
                    body(UnsafeRawPointer(value))  // the payload of a single-payload Optional is at offset 0
                }
            }
        ))
    }

    /// A list of view models; a section renders its body once per element, an inverted one when it is empty.
    @inlinable
    public static func list<Element: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, [Element]> & Sendable) -> Self {
        Self(name: name, access: listAccess(FieldReader(keyPath), child: { Element.templateFields.schema }))
    }

    /// A list of texts; inside its section `{{.}}` is the element.
    @inlinable
    public static func list(_ name: String, _ keyPath: KeyPath<Root, [String]> & Sendable) -> Self {
        Self(name: name, access: listAccess(FieldReader(keyPath), child: { .text }))
    }

    @inlinable
    static func listAccess<Element>(_ reader: FieldReader<Root, [Element]>, child: @escaping @Sendable () -> TemplateSchema) -> FieldAccess {
        FieldAccess(
            kind: .list, isOptional: false, child: child,
            write: { _, _, _ in false },
            truth: { context in reader.withValue(in: context) { $0.pointee.isEmpty } ? .falsy : .truthy },
            enter: { context, body in
                reader.withValue(in: context) { list in
                    list.pointee.withUnsafeBufferPointer { elements in
                        guard let base = elements.baseAddress else { return }
                        for index in 0..<elements.count { body(UnsafeRawPointer(base + index)) }
                    }
                }
            }
        )
    }
}
