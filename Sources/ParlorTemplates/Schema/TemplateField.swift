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

extension TemplateField {
    /// Text from a person or formatted by a builder; always HTML-escaped.
    @inlinable
    public static func text(_ name: String, _ keyPath: KeyPath<Root, String> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.text(offset: $0) } ?? .computed(computed(keyPath))
        return Self(name: name, access: FieldAccess(kind: .text, isOptional: false, child: { .text }, read: read))
    }

    /// Optional text: a section over it shows only when it is set, with `{{.}}` the text.
    @inlinable
    public static func text(_ name: String, _ keyPath: KeyPath<Root, String?> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.optionalText(offset: $0) } ?? .computed(computed(keyPath))
        return Self(name: name, access: FieldAccess(kind: .text, isOptional: true, child: { .text }, read: read))
    }

    /// Markup that Parlor built and trusts (a rendered fragment); the only kind `{{{name}}}` may print.
    @inlinable
    public static func markup(_ name: String, _ keyPath: KeyPath<Root, String> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.text(offset: $0) } ?? .computed(computed(keyPath))
        return Self(name: name, access: FieldAccess(kind: .markup, isOptional: false, child: { .text }, read: read))
    }

    /// A number, printed in decimal. Builders usually pre-format counts as text instead ("99+").
    @inlinable
    public static func number(_ name: String, _ keyPath: KeyPath<Root, Int> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.number(offset: $0) } ?? .computed(computedNumber(keyPath))
        return Self(name: name, access: FieldAccess(kind: .number, isOptional: false, child: { .number }, read: read))
    }

    /// A flag: a section over it shows when true, an inverted one when false. Printed, it reads "true"/"false".
    @inlinable
    public static func flag(_ name: String, _ keyPath: KeyPath<Root, Bool> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.flag(offset: $0) } ?? .computed(ComputedField(
            write: { context, out, _ in
                out.append(context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] ? "true" : "false")
                return true
            },
            truth: { context in context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] ? .truthy : .falsy },
            enter: { _, _ in }
        ))
        return Self(name: name, access: FieldAccess(kind: .flag, isOptional: false, child: nil, read: read))
    }

    /// A nested view model; `{{#name}}...{{/name}}` makes its fields visible, `{{name.field}}` reads one.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, Child> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { FieldRead.object(offset: $0) } ?? .computed(ComputedField(
            write: { _, _, _ in false },
            truth: { _ in .truthy },
            enter: { context, body in
                withUnsafePointer(to: context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]) { body(UnsafeRawPointer($0)) }
            }
        ))
        return Self(name: name, access: FieldAccess(kind: .object, isOptional: false, child: { Child.templateFields.schema }, read: read))
    }

    /// An optional nested view model; sections over it show only when it is set.
    @inlinable
    public static func object<Child: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, Child?> & Sendable) -> Self {
        let read = MemoryLayout<Root>.offset(of: keyPath).map { offset in
            FieldRead.optionalObject(offset: offset, isNil: { $0.assumingMemoryBound(to: Child?.self).pointee == nil })
        } ?? .computed(ComputedField(
            write: { _, _, _ in false },
            truth: { context in context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] == nil ? .missing : .truthy },
            enter: { context, body in
                guard let child = context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] else { return }
                withUnsafePointer(to: child) { body(UnsafeRawPointer($0)) }
            }
        ))
        return Self(name: name, access: FieldAccess(kind: .object, isOptional: true, child: { Child.templateFields.schema }, read: read))
    }

    /// A list of view models; a section renders its body once per element, an inverted one when it is empty.
    @inlinable
    public static func list<Element: TemplateContext>(_ name: String, _ keyPath: KeyPath<Root, [Element]> & Sendable) -> Self {
        Self(name: name, access: FieldAccess(kind: .list, isOptional: false, child: { Element.templateFields.schema }, read: listRead(keyPath)))
    }

    /// A list of texts; inside its section `{{.}}` is the element.
    @inlinable
    public static func list(_ name: String, _ keyPath: KeyPath<Root, [String]> & Sendable) -> Self {
        Self(name: name, access: FieldAccess(kind: .list, isOptional: false, child: { .text }, read: listRead(keyPath)))
    }

    @inlinable
    static func listRead<Element>(_ keyPath: KeyPath<Root, [Element]> & Sendable) -> FieldRead {
        let offset = MemoryLayout<Root>.offset(of: keyPath)
        @inline(__always)
        @Sendable func withList<Result>(_ context: UnsafeRawPointer, _ body: (borrowing [Element]) -> Result) -> Result {
            if let offset { return body((context + offset).assumingMemoryBound(to: [Element].self).pointee) }
            return body(context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath])
        }
        return .list(
            isEmpty: { context in withList(context) { $0.isEmpty } },
            forEach: { context, body in
                withList(context) { list in
                    list.withUnsafeBufferPointer { elements in
                        guard let base = elements.baseAddress else { return }
                        for index in 0..<elements.count { body(UnsafeRawPointer(base + index)) }
                    }
                }
            }
        )
    }

    @inlinable
    static func computed(_ keyPath: KeyPath<Root, String> & Sendable) -> ComputedField {
        ComputedField(
            write: { context, out, escape in
                withUnsafePointer(to: context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]) { out.appendText($0, escape: escape) }
                return true
            },
            truth: { _ in .truthy },
            enter: { context, body in
                withUnsafePointer(to: context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]) { body(UnsafeRawPointer($0)) }
            }
        )
    }

    @inlinable
    static func computed(_ keyPath: KeyPath<Root, String?> & Sendable) -> ComputedField {
        ComputedField(
            write: { context, out, escape in
                guard let text = context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] else { return false }
                withUnsafePointer(to: text) { out.appendText($0, escape: escape) }
                return true
            },
            truth: { context in context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] == nil ? .missing : .truthy },
            enter: { context, body in
                guard let text = context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath] else { return }
                withUnsafePointer(to: text) { body(UnsafeRawPointer($0)) }
            }
        )
    }

    @inlinable
    static func computedNumber(_ keyPath: KeyPath<Root, Int> & Sendable) -> ComputedField {
        ComputedField(
            write: { context, out, _ in
                out.append(String(context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]))
                return true
            },
            truth: { _ in .truthy },
            enter: { context, body in
                withUnsafePointer(to: context.assumingMemoryBound(to: Root.self).pointee[keyPath: keyPath]) { body(UnsafeRawPointer($0)) }
            }
        )
    }
}
