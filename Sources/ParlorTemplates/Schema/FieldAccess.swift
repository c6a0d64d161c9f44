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

/// Reads one field of a context behind a raw pointer. The pointer always points at a value of the type
/// the field was declared on: the compiler only pairs a field with the scope whose schema holds it.
/// A class so that the renderer passes one reference around instead of copying four closures.
@usableFromInline
final class FieldAccess: Sendable {
    @usableFromInline let kind: FieldKind
    @usableFromInline let isOptional: Bool
    /// The schema of the values a section over this field pushes (objects and list elements).
    @usableFromInline let child: (@Sendable () -> TemplateSchema)?
    /// Writes the value; false when it is nil.
    @usableFromInline let write: @Sendable (UnsafeRawPointer, inout OutputBuffer, _ escape: Bool) -> Bool
    @usableFromInline let truth: @Sendable (UnsafeRawPointer) -> Truth
    /// Calls the body once per value a section pushes: once for an object, text or number, once per list
    /// element, never for nil or an empty list. Flags push nothing and never call it.
    @usableFromInline let enter: @Sendable (UnsafeRawPointer, (UnsafeRawPointer) -> Void) -> Void

    @usableFromInline
    init(
        kind: FieldKind,
        isOptional: Bool,
        child: (@Sendable () -> TemplateSchema)?,
        write: @escaping @Sendable (UnsafeRawPointer, inout OutputBuffer, Bool) -> Bool,
        truth: @escaping @Sendable (UnsafeRawPointer) -> Truth,
        enter: @escaping @Sendable (UnsafeRawPointer, (UnsafeRawPointer) -> Void) -> Void
    ) {
        self.kind = kind
        self.isOptional = isOptional
        self.child = child
        self.write = write
        self.truth = truth
        self.enter = enter
    }

    /// `{{.}}` inside a section over text.
    static let textSelf = FieldAccess(
        kind: .text, isOptional: false, child: nil,
        write: { pointer, out, escape in
            out.appendText(pointer.assumingMemoryBound(to: String.self), escape: escape)
            return true
        },
        truth: { _ in .truthy },
        enter: { pointer, body in body(pointer) }
    )

    /// `{{.}}` inside a section over a number.
    static let numberSelf = FieldAccess(
        kind: .number, isOptional: false, child: nil,
        write: { pointer, out, _ in
            out.append(String(pointer.assumingMemoryBound(to: Int.self).pointee))
            return true
        },
        truth: { _ in .truthy },
        enter: { pointer, body in body(pointer) }
    )
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
