import CXML2

/// An XML document as a small tree: the feed formats are read by walking it. Qualified names are kept as
/// written ("dc:date"), compared case-insensitively by the readers.
final class XMLElement {
    let name: String
    let attributes: [String: String]
    var children: [XMLElement] = []
    var text = ""
    /// Its text runs and child elements in document order: what Atom's xhtml constructs need, whose words
    /// sit between inline elements ("Hello <b>world</b>!").
    var pieces: [Piece] = []

    enum Piece {
        case text(String)
        case element(XMLElement)
    }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The local name, lowercased ("dc:Date" -> "date"), and the prefix, lowercased ("dc").
    var localName: String { name.split(separator: ":").last.map { $0.lowercased() } ?? "" }
    var prefix: String? { name.contains(":") ? name.split(separator: ":").first.map { $0.lowercased() } : nil }

    func children(_ local: String, prefix: String? = nil) -> [XMLElement] {
        children.filter { $0.localName == local && (prefix == nil || $0.prefix == prefix) }
    }

    func first(_ local: String, prefix: String? = nil) -> XMLElement? {
        children.first { $0.localName == local && (prefix == nil || $0.prefix == prefix) }
    }

    /// What it holds as HTML markup, in document order, text escaped: Atom's xhtml constructs, read then
    /// by the same ``HTMLText`` as escaped HTML. Element names lose their prefix (`xhtml:b` is `b`).
    var innerMarkup: String {
        var out = ""
        appendInnerMarkup(to: &out)
        return out
    }

    private func appendInnerMarkup(to out: inout String) {
        for piece in pieces {
            switch piece {
            case .text(let run):
                out += HTMLEntities.escape(run)
            case .element(let element):
                out += "<" + element.localName
                for (name, value) in element.attributes.sorted(by: { $0.key < $1.key }) where !name.contains(":") {
                    out += " " + name + "=\"" + HTMLEntities.escape(value) + "\""
                }
                out += ">"
                element.appendInnerMarkup(to: &out)
                out += "</" + element.localName + ">"
            }
        }
    }

    func attribute(_ name: String) -> String? {
        attributes.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// Builds the tree with libxml2 (see CXML2): it reads the declared encoding, refuses what is not
/// well-formed (a document cut short, bytes that are not in its encoding, an undeclared entity), never
/// fetches or substitutes external entities, and limits depth and sizes itself. Nesting past
/// ``depthLimit`` is refused here as well.
enum XMLTreeBuilder {
    static let depthLimit = 128

    static func parse(_ bytes: [UInt8]) throws(FeedError) -> XMLElement {
        let prepared = HTMLEntities.declaredForXML(bytes)
        guard prepared.count <= Int(Int32.max) else { throw .tooLarge(bytes: prepared.count) }
        var line: Int32 = 0
        let document = prepared.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { parlor_xml_read($0, Int32(buffer.count), &line) }
            }
        }
        guard let document else { throw .malformed("it breaks off at line \(line)") }
        defer { parlor_xml_free_document(document) }
        guard let root = parlor_xml_root(document) else { throw .malformed("there is no root element") }
        return try element(root, depth: 1)
    }

    private static func element(_ node: UnsafeMutableRawPointer, depth: Int) throws(FeedError) -> XMLElement {
        guard depth <= depthLimit else { throw .malformed("elements nested more than \(depthLimit) deep") }
        var attributes: [String: String] = [:]
        var attribute = parlor_xml_first_attribute(node)
        while let current = attribute {
            if let value = parlor_xml_attribute_value(current) {
                attributes[qualified(parlor_xml_attribute_name(current), parlor_xml_attribute_prefix(current))] = String(cString: value)
                parlor_xml_free(value)
            }
            attribute = parlor_xml_next_attribute(current)
        }
        let built = XMLElement(name: qualified(parlor_xml_name(node), parlor_xml_prefix(node)), attributes: attributes)
        var child = parlor_xml_first_child(node)
        while let current = child {
            switch parlor_xml_kind(current) {
            case 1:
                let child = try element(current, depth: depth + 1)
                built.children.append(child)
                built.pieces.append(.element(child))
            case 2:
                if let text = parlor_xml_text(current) {
                    let run = String(cString: text)
                    built.text += run
                    built.pieces.append(.text(run))
                }
            default: break  // comments, processing instructions
            }
            child = parlor_xml_next(current)
        }
        return built
    }

    /// "prefix:name" as written, or "name". libxml2 hands out UTF-8 it has checked; `String(cString:)`
    /// repairs anything else rather than trapping.
    private static func qualified(_ name: UnsafePointer<CChar>?, _ prefix: UnsafePointer<CChar>?) -> String {
        let local = name.map { String(cString: $0) } ?? ""
        guard let prefix else { return local }
        return String(cString: prefix) + ":" + local
    }
}
