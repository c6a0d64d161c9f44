#if canImport(Glibc)
import Glibc
#endif

/// The socket address of the peer, copied as bytes and formatted only when asked for.
struct PeerAddress: Sendable {
    private var storage = sockaddr_storage()

    init?(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { return nil }
        let family = Int32(address.pointee.sa_family)
        let size = family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : family == AF_INET ? MemoryLayout<sockaddr_in>.size : 0
        guard size > 0 else { return nil }
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: size)) }
    }

    /// A peer given as text ("127.0.0.1" or "::1"), for a request answered in process; nil when it is no address.
    init?(text: String) {
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, text, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: ipv4) { target.copyMemory(from: $0) } }
        } else if inet_pton(AF_INET6, text, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            withUnsafeMutableBytes(of: &storage) { target in withUnsafeBytes(of: ipv6) { target.copyMemory(from: $0) } }
        } else {
            return nil
        }
    }

    /// "127.0.0.1" or "::1".
    var text: String? {
        var copy = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written: UnsafePointer<CChar>? = withUnsafeMutableBytes(of: &copy) { raw in
            switch Int32(storage.ss_family) {
            case AF_INET:
                let ipv4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                return inet_ntop(AF_INET, &ipv4.pointee.sin_addr, &buffer, socklen_t(buffer.count))
            case AF_INET6:
                let ipv6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                return inet_ntop(AF_INET6, &ipv6.pointee.sin6_addr, &buffer, socklen_t(buffer.count))
            default:
                return nil
            }
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
