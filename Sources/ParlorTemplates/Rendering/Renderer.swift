import ByteOutput

// Walks a compiled template over a stack of raw pointers to the view models in scope. The stack lives on
// the caller's stack frame for one render; the pointers are valid only inside that call.

enum Renderer {
    typealias Stack = UnsafeMutablePointer<UnsafeRawPointer>

    static func render<Root>(_ template: CompiledTemplate, _ value: Root, into out: inout OutputBuffer) {
        withUnsafePointer(to: value) { root in
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer.self, capacity: template.maxDepth + 1) { buffer in
                let stack = buffer.baseAddress!
                stack[0] = UnsafeRawPointer(root)
                render(template.root, stack: stack, depth: 0, into: &out)
            }
        }
    }

    private static func render(_ block: Block, stack: Stack, depth: Int, into out: inout OutputBuffer) {
        guard let indentation = block.indentation, !indentation.isEmpty else {
            for node in block.nodes { render(node, stack: stack, depth: depth, into: &out) }
            return
        }
        // Like swift-mustache: a node that starts a new line of this block's output gets the indentation,
        // unless it renders nothing.
        let start = out.count
        for node in block.nodes {
            if out.count > start, out.last == UInt8(ascii: "\n") {
                let mark = out.count
                out.append(contentsOf: indentation)
                let written = out.count
                render(node, stack: stack, depth: depth, into: &out)
                if out.count == written { out.truncate(toCount: mark) }
            } else {
                render(node, stack: stack, depth: depth, into: &out)
            }
        }
    }

    private static func render(_ node: Node, stack: Stack, depth: Int, into out: inout OutputBuffer) {
        switch node {
        case .text(let bytes):
            out.append(contentsOf: bytes)

        case .value(let lookup, let escape):
            withTarget(lookup, stack: stack) { owner, field in
                _ = field.write(owner, &out, escape)
            }

        case .section(let lookup, let body, let inverted, let pushes):
            var shown = inverted
            withTarget(lookup, stack: stack) { owner, field in
                let truth = field.truth(owner)
                if inverted {
                    shown = truth != .truthy
                } else if truth == .truthy {
                    if pushes {
                        field.enter(owner) { child in
                            stack[depth + 1] = child
                            render(body, stack: stack, depth: depth + 1, into: &out)
                        }
                    } else {
                        render(body, stack: stack, depth: depth, into: &out)
                    }
                }
            }
            if inverted, shown { render(body, stack: stack, depth: depth, into: &out) }

        case .partial(let block):
            render(block, stack: stack, depth: depth, into: &out)
        }
    }

    /// Calls `body` with the owner of the lookup's last field, unless a view model on the way is nil.
    @inline(__always)
    private static func withTarget(_ lookup: Lookup, stack: Stack, _ body: (UnsafeRawPointer, FieldAccess) -> Void) {
        let owner = stack[lookup.depth]
        if lookup.path.count == 1 {
            body(owner, lookup.path[0])
        } else {
            descend(lookup.path[...], from: owner, body)
        }
    }

    private static func descend(_ path: ArraySlice<FieldAccess>, from owner: UnsafeRawPointer, _ body: (UnsafeRawPointer, FieldAccess) -> Void) {
        guard path.count > 1 else {
            body(owner, path[path.startIndex])
            return
        }
        path[path.startIndex].enter(owner) { child in descend(path.dropFirst(), from: child, body) }
    }
}
