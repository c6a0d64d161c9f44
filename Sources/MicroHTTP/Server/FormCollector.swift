/// Gathers form parts from libmicrohttpd's post processor as raw bytes, joining values that
/// arrive in pieces, and checks UTF-8 only once a value is whole (a character may be split).
final class FormCollector {
    struct Part {
        var name: [UInt8]
        var filename: [UInt8]?
        var contentType: String?
        var bytes: [UInt8]
    }

    private(set) var parts: [Part] = []

    func receive(name: UnsafePointer<CChar>, filename: UnsafePointer<CChar>?, contentType: UnsafePointer<CChar>?,
                 data: UnsafePointer<CChar>?, offset: UInt64, size: Int) {
        let nameBytes = Self.bytes(name)
        let piece = data.map { UnsafeRawBufferPointer(start: $0, count: size) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if offset > 0, let last = parts.indices.last, parts[last].name == nameBytes {
            parts[last].bytes.append(contentsOf: piece)
        } else {
            parts.append(Part(name: nameBytes, filename: filename.map(Self.bytes),
                              contentType: contentType.map { String(cString: $0) }, bytes: Array(piece)))
        }
    }

    /// The form, or nil when a name or text value is not valid UTF-8.
    func form() -> FormData? {
        var form = FormData()
        for part in parts {
            guard let name = String(validating: part.name, as: UTF8.self) else { return nil }
            if let rawFilename = part.filename {
                guard let filename = String(validating: rawFilename, as: UTF8.self) else { return nil }
                form.files.append(FormData.File(fieldName: name, filename: filename, contentType: part.contentType, bytes: part.bytes))
            } else {
                guard let value = String(validating: part.bytes, as: UTF8.self) else { return nil }
                form.fields.append(name, value)
            }
        }
        return form
    }

    private static func bytes(_ text: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
