#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BoundedWork

/// Turns a host name into its addresses with the system's resolver, off the caller's thread (getaddrinfo
/// blocks and cannot be cancelled): on a few threads of its own, with a bounded wait, so a flood of lookups of slow
/// hosts holds neither Swift's threads nor an unbounded number of the system's.
public struct HostResolver: Sendable {
    let lookups: BoundedWorkQueue

    /// The resolver every outbound request of this process uses: feeds, pushes, webhooks, link cards.
    public static let shared = HostResolver(concurrency: 8, waitingLimit: 512)

    /// At most `concurrency` lookups at once, and `waitingLimit` waiting; past that a lookup finds nothing.
    public init(concurrency: Int, waitingLimit: Int) {
        lookups = BoundedWorkQueue(label: "parlor.dns", concurrency: concurrency, waitingLimit: waitingLimit)
    }

    /// Lookups refused so far because too many waited (each found nothing).
    public var refused: Int { lookups.refused }

    /// Tells `report` the total refused so far each time a lookup is.
    public func reportRefusals(to report: @escaping @Sendable (Int) -> Void) { lookups.reportRefusals(to: report) }

    /// The addresses of `host` (4 or 16 bytes each), IPv4 first; empty when it has none, or when too many lookups
    /// wait already.
    public func addresses(of host: String) async -> [[UInt8]] {
        await lookups.run { Self.lookUp(host) } ?? []
    }

    static func lookUp(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var v4: [[UInt8]] = [], v6: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            if let address = info.pointee.ai_addr {
                switch Int32(info.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin_addr
                        v4.append(withUnsafeBytes(of: &raw) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var raw = pointer.pointee.sin6_addr
                        v6.append(withUnsafeBytes(of: &raw) { Array($0) })
                    }
                default: break
                }
            }
            entry = info.pointee.ai_next
        }
        var seen = Set<[UInt8]>()
        return (v4 + v6).filter { seen.insert($0).inserted }
    }

    /// An address as text for a URL's host ("203.0.113.7", "2001:db8::1").
    public static func text(of address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = address.count == 4 ? AF_INET : AF_INET6
        address.withUnsafeBytes { raw in _ = inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
