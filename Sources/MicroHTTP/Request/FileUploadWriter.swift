#if canImport(Glibc)
import Glibc
#endif

/// Writes each uploaded file of one request into a file of its own in `folder` (created when needed,
/// readable by this user only) as its bytes arrive. The server removes the files once the response is
/// sent; a handler keeps a file by moving it.
struct FileUploadWriter: UploadWriter {
    let folder: String
    /// Names the request's files ("r42-1", "r42-2").
    let prefix: String
    private(set) var uploads: [FormData.Upload] = []
    /// Every file this writer created, finished or not, for removal.
    private(set) var paths: [String] = []
    private var current: (fieldName: String, filename: String, contentType: String?, path: String, descriptor: Int32, size: Int)?

    init(folder: String, prefix: String) {
        self.folder = folder
        self.prefix = prefix
    }

    mutating func begin(fieldName: String, filename: String, contentType: String?) throws(FormParser.Failure) {
        if mkdir(folder, 0o700) != 0, errno != EEXIST { throw .cannotStore }
        let path = folder + "/" + prefix + "-" + String(paths.count + 1)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotStore }
        paths.append(path)
        current = (fieldName, filename, contentType, path, descriptor, 0)
    }

    mutating func write(_ bytes: ArraySlice<UInt8>) throws(FormParser.Failure) {
        guard var file = current else { throw .malformed }
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(file.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written else { throw .cannotStore }
        file.size += bytes.count
        current = file
    }

    mutating func end() throws(FormParser.Failure) {
        guard let file = current else { throw .malformed }
        current = nil
        guard close(file.descriptor) == 0 else { throw .cannotStore }
        uploads.append(FormData.Upload(fieldName: file.fieldName, filename: file.filename, contentType: file.contentType, path: file.path, size: file.size))
    }

    /// Closes what is open and removes every file; for when the request is over.
    mutating func removeAll() {
        if let file = current { close(file.descriptor) }
        current = nil
        for path in paths { unlink(path) }
        paths = []
        uploads = []
    }
}
