// libFuzzer entry: an application/x-www-form-urlencoded body.
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLEncodedForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let form = try FormParser.parse(body, as: .urlencoded)
        precondition(form.files.isEmpty)
        // No field holds more than the body sent.
        for field in form.fields { precondition(field.name.utf8.count + field.value.utf8.count <= size) }
    } catch {
        // Refused with 400: what any malformed body must get.
    }
    return 0
}
