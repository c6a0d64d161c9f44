// The @convention(c) functions libmicrohttpd calls, kept in one enum outside any actor:
// libmicrohttpd runs them on its own threads.
import CMicroHTTPD
import Logging
#if canImport(Glibc)
import Glibc
#endif

enum Callbacks {
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, conCls in
        guard let cls, let connection, let url, let method, let version, let uploadSize, let conCls else { return .NO }
        // The daemon holds the server (and a response its stream) for as long as these
        // callbacks can run, so they borrow it without retain/release traffic.
        return Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { server in
            server.access(ConnectionHandle(raw: connection), url: url, method: method, version: version,
                          upload: upload, uploadSize: uploadSize, context: conCls)
        }
    }

    static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, _, _ in
        guard let cls else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        return server.refusingConnections.load(ordering: .acquiring) ? .NO : .YES
    }

    /// What the raw target's check (`parlor_mhd_raw_target` in shim.h) leaves in a request's context slot
    /// when the path has an encoded slash; not a context.
    static func isEncodedSlashMark(_ slot: UnsafeMutableRawPointer?) -> Bool {
        UInt(bitPattern: slot) == UInt(parlor_mhd_encoded_slash_mark)
    }

    static let requestCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
        guard let cls, let conCls, let context = conCls.pointee else { return }
        guard !isEncodedSlashMark(context) else {
            conCls.pointee = nil
            return
        }
        Unmanaged<RequestContext>.fromOpaque(context).release()
        conCls.pointee = nil
        Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestsInFlight.subtract(1, ordering: .releasing)
    }

    static let collectField: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let headers = cls.assumingMemoryBound(to: HTTPHeaders.self)
        headers.pointee.add(String(cString: key), value.map { String(cString: $0) } ?? "")
        return .YES
    }

    static let collectQueryItem: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let items = cls.assumingMemoryBound(to: QueryCollection.self)
        guard let name = String(validatingCString: key), let text = value.map(String.init(validatingCString:)) ?? "" else {
            items.pointee.valid = false
            return .NO
        }
        items.pointee.items.append(name, text)
        return .YES
    }

    static let releaseStorage: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<AnyObject>.fromOpaque(cls).release()
    }

    static let eventStreamRead: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return Int(parlor_mhd_reader_end_with_error) }
        return Unmanaged<EventStream>.fromOpaque(cls)._withUnsafeGuaranteedRef { stream in
            stream.fill(UnsafeMutableRawBufferPointer(start: buffer, count: max))
        }
    }

    static let eventStreamEnded: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue().finished()
    }
}

struct QueryCollection {
    var items = QueryItems()
    var valid = true
}

extension String {
    var trimmingTrailingNewlines: String {
        var copy = self
        while copy.last == "\n" || copy.last == "\r" { copy.removeLast() }
        return copy
    }
}

/// libmicrohttpd's own error messages, formatted by the shim, into the server's log.
@_cdecl("parlor_mhd_log_line")
func libraryLogLine(_ cls: UnsafeMutableRawPointer?, _ line: UnsafePointer<CChar>?) {
    guard let cls, let line else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let text = String(cString: line).trimmingTrailingNewlines
    server.logger.log(level: LibraryLog.level(of: text), "libmicrohttpd: \(text.escapedForLog)")
}

/// How loud a line of libmicrohttpd's is.
enum LibraryLog {
    /// What libmicrohttpd says when the other end went away: a browser leaving a page closes its event
    /// stream, and a day of 10,000 people logged 12,000 of these a minute. Normal, so debug; the rest warn.
    static let clientLeft = ["The socket is no longer available for sending", "The connection was forcibly closed by remote peer"]

    static func level(of line: String) -> Logger.Level {
        clientLeft.contains { line.contains($0) } ? .debug : .warning
    }
}
