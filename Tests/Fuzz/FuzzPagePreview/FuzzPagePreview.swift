// libFuzzer entry: a linked page's HTML, read for its preview card, under every charset Parlor may be told.
import ParlorFeeds

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPagePreview(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for type in [nil, "text/html; charset=utf-8", "text/html; charset=windows-1252", "text/html; charset=utf-16"] {
        guard let preview = PagePreview.parse(bytes, url: "https://example.org/a/b", contentType: type) else { continue }
        // Every value is short text on one line; the image is a web address.
        for (text, limit) in [(preview.title, PagePreview.titleLimit), (preview.description, PagePreview.descriptionLimit),
                              (preview.siteName, PagePreview.siteNameLimit)] {
            guard let text else { continue }
            precondition(!text.isEmpty && text.count <= limit)
            precondition(!text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\n" })
        }
        if let image = preview.imageURL { precondition(image.hasPrefix("http://") || image.hasPrefix("https://")) }
    }
    return 0
}
