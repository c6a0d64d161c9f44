import ByteOutput

/// What kind of value a field holds; decides which tags may use it.
@usableFromInline
enum FieldKind: Sendable {
    /// User text, always escaped.
    case text
    /// Trusted markup built by Parlor itself; the only kind `{{{ }}}` and `{{& }}` may print.
    case markup
    case number
    case flag
    case object
    case list
}

/// Whether a section over a value shows its body.
@usableFromInline
enum Truth: Sendable {
    /// The value is nil: the tag renders as if the name were absent.
    case missing
    case falsy
    case truthy
}

/// How a field's value is found in its context. Stored properties are read at their byte offset with no
/// generic code and no reference counting; the closures cover what depends on the element type (lists,
/// optional view models) and key paths that are not stored properties.
@usableFromInline
enum FieldRead: Sendable {
    case text(offset: Int)
    case optionalText(offset: Int)
    case number(offset: Int)
    case flag(offset: Int)
    case object(offset: Int)
    /// `isNil` reads the Optional at the offset; its payload, when set, starts at the same offset.
    case optionalObject(offset: Int, isNil: @Sendable (UnsafeRawPointer) -> Bool)
    case list(isEmpty: @Sendable (UnsafeRawPointer) -> Bool, forEach: @Sendable (UnsafeRawPointer, (UnsafeRawPointer) -> Void) -> Void)
    case computed(ComputedField)
}

/// A field read by applying a key path that is not a stored property (a computed property).
@usableFromInline
struct ComputedField: Sendable {
    @usableFromInline let write: @Sendable (UnsafeRawPointer, inout OutputBuffer, Bool) -> Bool
    @usableFromInline let truth: @Sendable (UnsafeRawPointer) -> Truth
    @usableFromInline let enter: @Sendable (UnsafeRawPointer, (UnsafeRawPointer) -> Void) -> Void

    @usableFromInline
    init(
        write: @escaping @Sendable (UnsafeRawPointer, inout OutputBuffer, Bool) -> Bool,
        truth: @escaping @Sendable (UnsafeRawPointer) -> Truth,
        enter: @escaping @Sendable (UnsafeRawPointer, (UnsafeRawPointer) -> Void) -> Void
    ) {
        self.write = write
        self.truth = truth
        self.enter = enter
    }
}

/// Reads one field of a context behind a raw pointer. The pointer always points at a value of the type
/// the field was declared on: the compiler only pairs a field with the scope whose schema holds it.
@usableFromInline
final class FieldAccess: Sendable {
    @usableFromInline let kind: FieldKind
    @usableFromInline let isOptional: Bool
    /// The schema of the values a section over this field pushes (objects, list elements, text).
    @usableFromInline let child: (@Sendable () -> TemplateSchema)?
    @usableFromInline let read: FieldRead

    @usableFromInline
    init(kind: FieldKind, isOptional: Bool, child: (@Sendable () -> TemplateSchema)?, read: FieldRead) {
        self.kind = kind
        self.isOptional = isOptional
        self.child = child
        self.read = read
    }

    /// Writes the value; false when it is nil.
    func write(_ context: UnsafeRawPointer, into out: inout OutputBuffer, escape: Bool) -> Bool {
        switch read {
        case .text(let offset):
            out.appendText((context + offset).assumingMemoryBound(to: String.self), escape: escape)
            return true
        case .optionalText(let offset):
            guard (context + offset).assumingMemoryBound(to: String?.self).pointee != nil else { return false }
            // A single-payload Optional keeps its payload at offset 0.
            out.appendText((context + offset).assumingMemoryBound(to: String.self), escape: escape)
            return true
        case .number(let offset):
            out.append(String((context + offset).assumingMemoryBound(to: Int.self).pointee))
            return true
        case .flag(let offset):
            if (context + offset).assumingMemoryBound(to: Bool.self).pointee { out.append("true") } else { out.append("false") }
            return true
        case .object, .optionalObject, .list:
            return false
        case .computed(let field):
            return field.write(context, &out, escape)
        }
    }

    func truth(_ context: UnsafeRawPointer) -> Truth {
        switch read {
        case .text, .number, .object:
            return .truthy
        case .optionalText(let offset):
            return (context + offset).assumingMemoryBound(to: String?.self).pointee == nil ? .missing : .truthy
        case .flag(let offset):
            return (context + offset).assumingMemoryBound(to: Bool.self).pointee ? .truthy : .falsy
        case .optionalObject(let offset, let isNil):
            return isNil(context + offset) ? .missing : .truthy
        case .list(let isEmpty, _):
            return isEmpty(context) ? .falsy : .truthy
        case .computed(let field):
            return field.truth(context)
        }
    }

    /// Calls `body` once per value a section pushes: once for an object, text or number, once per list
    /// element, never for nil or an empty list. Flags push nothing and never call it.
    func enter(_ context: UnsafeRawPointer, _ body: (UnsafeRawPointer) -> Void) {
        switch read {
        case .text(let offset), .number(let offset), .object(let offset):
            body(context + offset)
        case .optionalText(let offset):
            if (context + offset).assumingMemoryBound(to: String?.self).pointee != nil { body(context + offset) }
        case .optionalObject(let offset, let isNil):
            if !isNil(context + offset) { body(context + offset) }
        case .flag:
            return
        case .list(_, let forEach):
            forEach(context, body)
        case .computed(let field):
            field.enter(context, body)
        }
    }

    /// `{{.}}` inside a section over text.
    @usableFromInline static let textSelf: FieldAccess = FieldAccess(kind: .text, isOptional: false, child: { TemplateSchema.text }, read: .text(offset: 0))

    /// `{{.}}` inside a section over a number.
    @usableFromInline static let numberSelf: FieldAccess = FieldAccess(kind: .number, isOptional: false, child: { TemplateSchema.number }, read: .number(offset: 0))
}

extension OutputBuffer {
    /// Appends the string at `text` (read in place, not copied), escaped unless `escape` is false.
    @inlinable
    mutating func appendText(_ text: UnsafePointer<String>, escape: Bool) {
        let done: Void? = text.pointee.utf8.withContiguousStorageIfAvailable { bytes in
            if escape { appendEscapingHTML(bytes) } else { append(UnsafeRawBufferPointer(bytes)) }
        }
        if done == nil {
            if escape { appendEscapingHTML(text.pointee) } else { append(text.pointee) }
        }
    }
}
