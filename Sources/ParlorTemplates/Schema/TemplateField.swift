import ByteOutput

/// One named field of a view model, read through a key path (or any function of the view model).
/// The name must be the property's own name: the test oracle reads view models by reflection.
public struct TemplateField<Root>: Sendable {
    @usableFromInline let name: String
    @usableFromInline let access: FieldAccess

    @usableFromInline
    init(name: String, access: FieldAccess) {
        self.name = name
        self.access = access
    }
}

@usableFromInline
func borrow<Root>(_ pointer: UnsafeRawPointer, as type: Root.Type) -> UnsafePointer<Root> {
    pointer.assumingMemoryBound(to: Root.self)
}

extension TemplateField {
    /// Text from a person or formatted by a builder; always HTML-escaped.
    @inlinable
    public static func text(_ name: String, _ get: @escaping @Sendable (Root) -> String) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .text, isOptional: false, child: { .text },
            write: { pointer, out, escape in
                out.appendText(get(borrow(pointer, as: Root.self).pointee), escape: escape)
                return true
            },
            truth: { _ in .truthy },
            enter: { pointer, body in
                withUnsafePointer(to: get(borrow(pointer, as: Root.self).pointee)) { body(UnsafeRawPointer($0)) }
            }
        ))
    }

    /// Optional text: a section over it shows only when it is set, with `{{.}}` the text.
    @inlinable
    public static func text(_ name: String, _ get: @escaping @Sendable (Root) -> String?) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .text, isOptional: true, child: { .text },
            write: { pointer, out, escape in
                guard let text = get(borrow(pointer, as: Root.self).pointee) else { return false }
                out.appendText(text, escape: escape)
                return true
            },
            truth: { pointer in get(borrow(pointer, as: Root.self).pointee) == nil ? .missing : .truthy },
            enter: { pointer, body in
                guard let text = get(borrow(pointer, as: Root.self).pointee) else { return }
                withUnsafePointer(to: text) { body(UnsafeRawPointer($0)) }
            }
        ))
    }

    /// Markup that Parlor built and trusts (a rendered fragment); the only kind `{{{name}}}` may print.
    @inlinable
    public static func markup(_ name: String, _ get: @escaping @Sendable (Root) -> String) -> Self {
        let text = Self.text(name, get).access
        return Self(name: name, access: FieldAccess(
            kind: .markup, isOptional: false, child: text.child, write: text.write, truth: text.truth, enter: text.enter
        ))
    }

    /// A number, printed in decimal. Builders usually pre-format counts as text instead ("99+").
    @inlinable
    public static func number(_ name: String, _ get: @escaping @Sendable (Root) -> Int) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .number, isOptional: false, child: { .number },
            write: { pointer, out, _ in
                out.append(String(get(borrow(pointer, as: Root.self).pointee)))
                return true
            },
            truth: { _ in .truthy },
            enter: { pointer, body in
                withUnsafePointer(to: get(borrow(pointer, as: Root.self).pointee)) { body(UnsafeRawPointer($0)) }
            }
        ))
    }

    /// A flag: a section over it shows when true, an inverted one when false. Printed, it reads "true"/"false".
    @inlinable
    public static func flag(_ name: String, _ get: @escaping @Sendable (Root) -> Bool) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .flag, isOptional: false, child: nil,
            write: { pointer, out, _ in
                if get(borrow(pointer, as: Root.self).pointee) { out.append("true") } else { out.append("false") }
                return true
            },
            truth: { pointer in get(borrow(pointer, as: Root.self).pointee) ? .truthy : .falsy },
            enter: { _, _ in }
        ))
    }

    /// A nested view model; `{{#name}}...{{/name}}` makes its fields visible, `{{name.field}}` reads one.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ get: @escaping @Sendable (Root) -> Child) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .object, isOptional: false, child: { Child.templateFields.schema },
            write: { _, _, _ in false },
            truth: { _ in .truthy },
            enter: { pointer, body in
                withUnsafePointer(to: get(borrow(pointer, as: Root.self).pointee)) { body(UnsafeRawPointer($0)) }
            }
        ))
    }

    /// An optional nested view model; sections over it show only when it is set.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ get: @escaping @Sendable (Root) -> Child?) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .object, isOptional: true, child: { Child.templateFields.schema },
            write: { _, _, _ in false },
            truth: { pointer in get(borrow(pointer, as: Root.self).pointee) == nil ? .missing : .truthy },
            enter: { pointer, body in
                guard let child = get(borrow(pointer, as: Root.self).pointee) else { return }
                withUnsafePointer(to: child) { body(UnsafeRawPointer($0)) }
            }
        ))
    }

    /// A list of view models; a section renders its body once per element, an inverted one when it is empty.
    @inlinable
    public static func list<Element: TemplateContext>(_ name: String, _ get: @escaping @Sendable (Root) -> [Element]) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .list, isOptional: false, child: { Element.templateFields.schema },
            write: { _, _, _ in false },
            truth: { pointer in get(borrow(pointer, as: Root.self).pointee).isEmpty ? .falsy : .truthy },
            enter: { pointer, body in
                get(borrow(pointer, as: Root.self).pointee).withUnsafeBufferPointer { elements in
                    guard let base = elements.baseAddress else { return }
                    for index in 0..<elements.count { body(UnsafeRawPointer(base + index)) }
                }
            }
        ))
    }

    /// A list of texts; inside its section `{{.}}` is the element.
    @inlinable
    public static func list(_ name: String, _ get: @escaping @Sendable (Root) -> [String]) -> Self {
        Self(name: name, access: FieldAccess(
            kind: .list, isOptional: false, child: { .text },
            write: { _, _, _ in false },
            truth: { pointer in get(borrow(pointer, as: Root.self).pointee).isEmpty ? .falsy : .truthy },
            enter: { pointer, body in
                get(borrow(pointer, as: Root.self).pointee).withUnsafeBufferPointer { elements in
                    guard let base = elements.baseAddress else { return }
                    for index in 0..<elements.count { body(UnsafeRawPointer(base + index)) }
                }
            }
        ))
    }
}
