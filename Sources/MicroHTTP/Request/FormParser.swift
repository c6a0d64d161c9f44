/// Parses a complete form body. The HTTP front collects the body first (bounded by the
/// route's limit), so values that arrived in any number of pieces are whole here, and
/// UTF-8 is checked on whole values, never on a split character.
enum FormParser {
    enum Failure: Error, Equatable {
        case malformed
        case invalidUTF8
        /// More text fields, or a longer part head, than a streamed form may hold in memory.
        case tooLarge
        /// An uploaded file could not be written to disk (full, or not writable).
        case cannotStore
        /// More files or more text fields than the route takes (``UploadLimits``).
        case tooManyParts
    }

    enum Kind: Equatable {
        case urlencoded
        case multipart(boundary: [UInt8])
    }

    /// The kind of form a `Content-Type` names, or nil for anything else.
    /// Whether a `Content-Type` names `wanted` ("application/json"), in UTF-8 if it names a charset at all:
    /// the one body a route with a raw body takes. Anything else is refused with 415.
    static func isRawBody(contentType: String, of wanted: String) -> Bool {
        // Empty pieces kept: ";application/json" names no media type.
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard parts.first?.lowercased() == wanted else { return false }
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "="), parameter[..<equals].trimmingSpaces.lowercased() == "charset" else { continue }
            var charset = parameter[parameter.index(after: equals)...].trimmingSpaces
            if charset.count >= 2, charset.first == "\"", charset.last == "\"" { charset = String(charset.dropFirst().dropLast()) }
            guard ["utf-8", "utf8"].contains(charset.lowercased()) else { return false }
        }
        return true
    }

    static func kind(contentType: String) -> Kind? {
        let parts = contentType.split(separator: ";").map { $0.trimmingSpaces }
        guard let type = parts.first?.lowercased() else { return nil }
        if type == "application/x-www-form-urlencoded" { return .urlencoded }
        guard type == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "="),
                  parameter[..<equals].lowercased() == "boundary" else { continue }
            var boundary = parameter[parameter.index(after: equals)...]
            if boundary.count >= 2, boundary.first == "\"", boundary.last == "\"" { boundary = boundary.dropFirst().dropLast() }
            guard !boundary.isEmpty, boundary.utf8.count <= 200 else { return nil }
            return .multipart(boundary: Array(boundary.utf8))
        }
        return nil
    }

    static func parse(_ body: [UInt8], as kind: Kind) throws(Failure) -> FormData {
        switch kind {
        case .urlencoded: FormData(fields: try urlencoded(body[...]))
        case .multipart(let boundary): try multipart(body, boundary: boundary)
        }
    }

    /// `a=1&b=two+words&c=%E2%98%95`.
    static func urlencoded(_ body: ArraySlice<UInt8>) throws(Failure) -> QueryItems {
        var items = QueryItems()
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try decodeComponent(equals.map { pair[..<$0] } ?? pair)
            let value = try decodeComponent(equals.map { pair[pair.index(after: $0)...] } ?? [])
            items.append(name, value)
        }
        return items
    }

    /// Percent-decoding with `+` as a space, then UTF-8 validation.
    static func decodeComponent(_ bytes: ArraySlice<UInt8>) throws(Failure) -> String {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
            return text
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { throw .malformed }
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// RFC 7578 multipart/form-data.
    static func multipart(_ body: [UInt8], boundary: [UInt8]) throws(Failure) -> FormData {
        let delimiter = Array("--".utf8) + boundary
        let separator = Array("\r\n".utf8) + delimiter
        guard var cursor = ByteSearch.firstRange(of: delimiter, in: body[...])?.upperBound else { throw .malformed }
        var form = FormData()
        while true {
            // After a delimiter: "--" ends the form, CRLF starts a part.
            if body[cursor...].starts(with: Array("--".utf8)) { return form }
            guard body[cursor...].starts(with: Array("\r\n".utf8)) else { throw .malformed }
            cursor += 2
            guard let headEnd = ByteSearch.firstRange(of: Array("\r\n\r\n".utf8), in: body[cursor...]) else { throw .malformed }
            let head = try partHead(body[cursor..<headEnd.lowerBound])
            guard let next = ByteSearch.firstRange(of: separator, in: body[headEnd.upperBound...]) else { throw .malformed }
            let content = Array(body[headEnd.upperBound..<next.lowerBound])
            if let filename = head.filename {
                form.files.append(FormData.File(fieldName: head.name, filename: filename, contentType: head.contentType, bytes: content))
            } else {
                guard let value = String(validating: content, as: UTF8.self) else { throw .invalidUTF8 }
                form.fields.append(head.name, value)
            }
            cursor = next.upperBound
        }
    }

    struct PartHead {
        var name: String
        var filename: String?
        var contentType: String?
    }

    static func partHead(_ bytes: ArraySlice<UInt8>) throws(Failure) -> PartHead {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        var name: String?
        var filename: String?
        var contentType: String?
        for line in text.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if field == "content-type" { contentType = value }
            guard field == "content-disposition" else { continue }
            for parameter in value.split(separator: ";").dropFirst().map({ $0.trimmingSpaces }) {
                guard let equals = parameter.firstIndex(of: "=") else { continue }
                var parameterValue = parameter[parameter.index(after: equals)...]
                if parameterValue.count >= 2, parameterValue.first == "\"", parameterValue.last == "\"" {
                    parameterValue = parameterValue.dropFirst().dropLast()
                }
                switch parameter[..<equals].lowercased() {
                case "name": name = String(parameterValue)
                case "filename": filename = String(parameterValue)
                default: break
                }
            }
        }
        guard let name else { throw .malformed }
        return PartHead(name: name, filename: filename, contentType: contentType)
    }
}
