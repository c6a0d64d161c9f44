import ByteOutput

/// The built-in page for refusals and failures: the status, the message and the request id,
/// escaped, and nothing of the server's internals. Applications usually replace it through
/// ``Router/errorResponder`` with their own template.
public enum ErrorPage {
    /// Renders `error` as a small HTML page.
    @Sendable public static func response(for error: HTTPError, requestID: String) -> Response {
        var page = OutputBuffer(capacity: 512)
        page.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" as StaticString)
        page.appendEscaped(error.status.reasonPhrase)
        page.append("</title></head><body><h1>" as StaticString)
        page.appendEscaped(error.status.reasonPhrase)
        page.append("</h1><p>" as StaticString)
        page.appendEscaped(error.message)
        page.append("</p><p><small>Request " as StaticString)
        page.appendEscaped(requestID)
        page.append("</small></p></body></html>\n" as StaticString)
        var response = Response.html(page, status: error.status)
        for field in error.headers { response.headers.add(field.name, field.value) }
        return response
    }
}

extension OutputBuffer {
    /// Appends `text` escaped for HTML text and attribute values.
    mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;" as StaticString)
            case UInt8(ascii: "<"): append("&lt;" as StaticString)
            case UInt8(ascii: ">"): append("&gt;" as StaticString)
            case UInt8(ascii: "\""): append("&quot;" as StaticString)
            case UInt8(ascii: "'"): append("&#39;" as StaticString)
            default: append(byte)
            }
        }
    }
}
