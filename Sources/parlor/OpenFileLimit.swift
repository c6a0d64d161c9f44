import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Every connection costs a descriptor. Debian's default soft limit (1,024) would make a
/// server configured for thousands of connections stall, so Parlor raises the soft limit
/// to the hard one at start and warns when even that is short of the connection limit.
enum OpenFileLimit {
    static func raise(toServe connections: Int, logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let available = Int(clamping: limit.rlim_cur)
        let needed = connections + 64  // files, the database, the listening socket
        if available < needed {
            logger.warning("the open-file limit is below the connection limit: raise it (LimitNOFILE= in systemd, ulimit -n)", metadata: [
                "open-file-limit": "\(available)", "connection-limit": "\(connections)",
            ])
        }
    }
}
