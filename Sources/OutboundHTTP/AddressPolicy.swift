#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses and ports Parlor may send a request to: public unicast addresses on the web's ports. The
/// addresses it is asked to reach (a feed, a linked page, a push service, a bot's webhook) are typed by people
/// and bots, so without this anyone could make Parlor read the host's own services, the cloud's metadata address
/// or the private network behind it.
public struct AddressPolicy: Sendable, Hashable {
    /// The ports a request may go to (80 and 443 unless told).
    public let ports: Set<Int>
    /// Loopback allowed: for tests, whose servers listen on 127.0.0.1.
    public let allowsLoopback: Bool

    public init(ports: Set<Int> = [80, 443], allowsLoopback: Bool = false) {
        self.ports = ports
        self.allowsLoopback = allowsLoopback
    }

    /// Whether an address (4 or 16 bytes, network order) may be connected to.
    public func allows(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4: return allowsIPv4(address)
        case 16: return allowsIPv6(address)
        default: return false
        }
    }

    /// The address in text ("203.0.113.7", "2001:db8::1") as bytes; nil when it is not an IP address.
    public static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private func allowsIPv4(_ a: [UInt8]) -> Bool {
        if a[0] == 127 { return allowsLoopback }
        switch (a[0], a[1], a[2]) {
        case (0, _, _): return false  // "this network"
        case (10, _, _): return false  // private
        case (100, 64...127, _): return false  // shared (carrier-grade NAT)
        case (169, 254, _): return false  // link-local, where cloud metadata lives
        case (172, 16...31, _): return false  // private
        case (192, 0, 0), (192, 0, 2): return false  // IETF protocol assignments, documentation
        case (192, 88, 99): return false  // 6to4 relay anycast
        case (192, 168, _): return false  // private
        case (198, 18...19, _): return false  // benchmarking
        case (198, 51, 100), (203, 0, 113): return false  // documentation
        case (224...255, _, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    private func allowsIPv6(_ a: [UInt8]) -> Bool {
        let zeros = a[0..<10].allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 address; ::a.b.c.d (IPv4-compatible, deprecated) is refused.
        if zeros, a[10] == 0xFF, a[11] == 0xFF { return allowsIPv4(Array(a[12..<16])) }
        if zeros, a[10] == 0, a[11] == 0 {
            if a[12..<15].allSatisfy({ $0 == 0 }), a[15] == 1 { return allowsLoopback }  // ::1
            return false  // ::, ::a.b.c.d
        }
        // 64:ff9b::/96 (NAT64) reaches the IPv4 address it embeds.
        if a[0] == 0x00, a[1] == 0x64, a[2] == 0xFF, a[3] == 0x9B, a[4..<12].allSatisfy({ $0 == 0 }) {
            return allowsIPv4(Array(a[12..<16]))
        }
        // 2002::/16 (6to4) embeds an IPv4 address in its next 32 bits.
        if a[0] == 0x20, a[1] == 0x02 { return allowsIPv4(Array(a[2..<6])) }
        // Global unicast is 2000::/3; everything else (ULA fc00::/7, link-local fe80::/10, site-local,
        // multicast ff00::/8, discard 100::/64, 64:ff9b:1::/48) is refused.
        guard a[0] & 0xE0 == 0x20 else { return false }
        // 2001::/23 holds special-purpose blocks (Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID); 2001:db8::/32 is documentation.
        if a[0] == 0x20, a[1] == 0x01, a[2] < 0x02 { return false }
        if a[0] == 0x20, a[1] == 0x01, a[2] == 0x0D, a[3] == 0xB8 { return false }
        // 3fff::/20 is documentation too.
        if a[0] == 0x3F, a[1] == 0xFF, a[2] & 0xF0 == 0 { return false }
        return true
    }
}
