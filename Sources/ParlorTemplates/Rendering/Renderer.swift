import ByteOutput

// Runs a compiled program over a stack of raw pointers to the view models in scope. The stack lives on
// the caller's stack frame for one render; the pointers are valid only inside that call.

struct Renderer: ~Copyable {
    private let operations: UnsafeBufferPointer<Operation>
    private let text: UnsafeBufferPointer<UInt8>
    private let program: Program
    private let stack: UnsafeMutablePointer<UnsafeRawPointer>

    static func render<Root>(_ program: Program, _ value: Root, into out: inout OutputBuffer) {
        withUnsafePointer(to: value) { root in
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer.self, capacity: program.maxDepth + 1) { stack in
                stack[0] = UnsafeRawPointer(root)
                program.operations.withUnsafeBufferPointer { operations in
                    program.text.withUnsafeBufferPointer { text in
                        let renderer = Renderer(operations: operations, text: text, program: program, stack: stack.baseAddress!)
                        renderer.run(0, operations.count, depth: 0, indentation: -1, into: &out)
                    }
                }
            }
        }
    }

    /// Renders operations `start..<end`. Like swift-mustache, when the block is inside an indented partial,
    /// an operation that starts a new line of this block's output gets the indentation, unless it renders nothing.
    private func run(_ start: Int, _ end: Int, depth: Int, indentation: Int, into out: inout OutputBuffer) {
        guard indentation >= 0 else {
            // The common case, kept tight: no indentation bookkeeping between operations.
            var index = start
            while index < end { index = step(index, depth: depth, indentation: indentation, into: &out) }
            return
        }
        let blockStart = out.count
        var index = start
        while index < end {
            if out.count > blockStart, out.last == UInt8(ascii: "\n") {
                let mark = out.count
                out.append(contentsOf: program.indentations[indentation])
                let written = out.count
                index = step(index, depth: depth, indentation: indentation, into: &out)
                if out.count == written { out.truncate(toCount: mark) }
            } else {
                index = step(index, depth: depth, indentation: indentation, into: &out)
            }
        }
    }

    /// Renders the operation at `index` (with its body) and returns the index of the next one.
    @inline(__always)
    private func step(_ index: Int, depth: Int, indentation: Int, into out: inout OutputBuffer) -> Int {
        switch operations[index] {
        case .text(let start, let count):
            out.append(UnsafeRawBufferPointer(start: text.baseAddress! + start, count: count))
            return index + 1

        case .value(let lookup, let escape):
            if lookup.path < 0 {
                _ = lookup.field._withUnsafeGuaranteedRef { $0.write(stack[lookup.depth], into: &out, escape: escape) }
            } else {
                withTarget(lookup) { owner, field in _ = field.write(owner, into: &out, escape: escape) }
            }
            return index + 1

        case .section(let lookup, let inverted, let pushes, let end):
            section(lookup, inverted: inverted, pushes: pushes, body: index + 1, end: end, depth: depth, indentation: indentation, into: &out)
            return end

        case .partial(let partialIndentation, let end):
            run(index + 1, end, depth: depth, indentation: partialIndentation, into: &out)
            return end
        }
    }

    private func section(
        _ lookup: Lookup, inverted: Bool, pushes: Bool, body: Int, end: Int, depth: Int, indentation: Int, into out: inout OutputBuffer
    ) {
        var shown = inverted
        withTarget(lookup) { owner, field in
            let truth = field.truth(owner)
            if inverted {
                shown = truth != .truthy
            } else if truth == .truthy {
                if pushes {
                    field.enter(owner) { child in
                        stack[depth + 1] = child
                        run(body, end, depth: depth + 1, indentation: indentation, into: &out)
                    }
                } else {
                    run(body, end, depth: depth, indentation: indentation, into: &out)
                }
            }
        }
        if inverted, shown { run(body, end, depth: depth, indentation: indentation, into: &out) }
    }

    /// Calls `body` with the owner of the lookup's last field, unless a view model on the way is nil.
    @inline(__always)
    private func withTarget(_ lookup: Lookup, _ body: (UnsafeRawPointer, FieldAccess) -> Void) {
        let owner = stack[lookup.depth]
        guard lookup.path >= 0 else {
            lookup.field._withUnsafeGuaranteedRef { body(owner, $0) }
            return
        }
        descend(program.paths[lookup.path][...], from: owner, body)
    }

    private func descend(_ path: ArraySlice<Unmanaged<FieldAccess>>, from owner: UnsafeRawPointer, _ body: (UnsafeRawPointer, FieldAccess) -> Void) {
        guard path.count > 1 else {
            path[path.startIndex]._withUnsafeGuaranteedRef { body(owner, $0) }
            return
        }
        path[path.startIndex]._withUnsafeGuaranteedRef { field in
            field.enter(owner) { child in descend(path.dropFirst(), from: child, body) }
        }
    }
}
