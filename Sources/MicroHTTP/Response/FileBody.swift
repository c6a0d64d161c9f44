import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An open regular file to send as a body. libmicrohttpd takes the descriptor when the
/// response is queued; if it never is, the descriptor is closed when this is released.
public final class FileBody: Sendable {
    private let descriptor: Mutex<Int32?>
    /// Bytes to send, from offset 0.
    public let size: UInt64

    init(descriptor: Int32, size: UInt64) {
        self.descriptor = Mutex(descriptor)
        self.size = size
    }

    /// The regular file at `path`, opened for reading; nil when there is none.
    public static func open(path: String) -> FileBody? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        return FileBody(descriptor: descriptor, size: UInt64(info.st_size))
    }

    /// Hands the descriptor over (once); the caller must close it or give it to libmicrohttpd.
    func take() -> Int32? { descriptor.withLock { fd in defer { fd = nil }; return fd } }

    deinit { if let fd = take() { close(fd) } }
}
