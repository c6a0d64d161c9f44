import CVips
import Foundation
import Synchronization

/// libvips, started once per process with Parlor's settings (see `parlor_vips_start` in the shim): no
/// operation cache, only the JPEG, PNG, WebP and GIF loaders, nothing libvips marks untrusted.
enum Vips {
    private static let started = Mutex<Bool?>(nil)

    /// Starts libvips the first time; false when it could not start.
    static func start() -> Bool {
        started.withLock { started in
            if let started { return started }
            let ok = parlor_vips_start() == 0
            started = ok
            return ok
        }
    }

    /// The error libvips recorded on this thread, and forgets it: for the log, never for a person.
    static func takeError() -> String {
        let text = parlor_vips_error().map { String(cString: $0) } ?? ""
        parlor_vips_error_clear()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func unref(_ image: OpaquePointer) { parlor_vips_unref(UnsafeMutableRawPointer(image)) }

    /// Encoded bytes libvips allocated, copied out and freed.
    static func take(_ bytes: UnsafeMutableRawPointer?, _ length: Int) -> [UInt8] {
        guard let bytes else { return [] }
        defer { parlor_vips_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
