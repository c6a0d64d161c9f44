// Who sent a request that came through proxies. Only `X-Forwarded-For` is read (RFC 7239's `Forwarded` is
// not: one header, one meaning, and it is what nginx and HAProxy write); a proxy appends the address it saw,
// so the chain is read from the right, and only as far as the hops are proxies the server trusts.
#if canImport(Glibc)
import Glibc
#endif

/// The client's address, from the socket's peer and the `X-Forwarded-For` chain the trusted proxies wrote.
public enum ClientAddress {
    /// The client's address. `peer` is the socket's peer ("127.0.0.1", "::1"); `forwardedFor` every
    /// `X-Forwarded-For` line in the order received (HTTP joins repeated lines in order, RFC 9110 §5.3);
    /// `trusted` the proxies' addresses. Walking from the right, each hop the server trusts hands over to the
    /// address it reported; the first hop it does not trust is the client. An address that is not an IP
    /// address (a client can write anything left of what the proxies appended) ends the walk with nil: not
    /// known, so never mistaken for an address that is allowed something. Empty list elements are skipped.
    public static func resolve(peer: String, forwardedFor: [String], trusted: Set<String>) -> String? {
        guard trusted.contains(peer) else { return peer }
        var current = peer
        for line in forwardedFor.reversed() {
            for element in line.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                let trimmed = element.trimmingSpaces
                if trimmed.isEmpty { continue }
                guard let address = canonical(trimmed) else { return nil }
                current = address
                if !trusted.contains(address) { return address }
            }
        }
        // Every hop is trusted: the leftmost is where the request began.
        return current
    }

    /// The last element of a list field's joined lines (`X-Forwarded-Proto`, `X-Forwarded-Host`): what the
    /// nearest proxy added. Nil when there is none.
    public static func lastElement(_ lines: [String]) -> String? {
        for line in lines.reversed() {
            for element in line.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                let trimmed = element.trimmingSpaces
                if !trimmed.isEmpty { return trimmed }
            }
        }
        return nil
    }

    /// An IPv4 or IPv6 address as `inet_ntop` writes it (what the peer's text looks like), from the forms
    /// proxies use: "192.0.2.7", "192.0.2.7:4711", "2001:db8::1", "[2001:db8::1]", "[2001:db8::1]:4711".
    /// Nil for anything else.
    public static func canonical(_ text: String) -> String? {
        var host = Substring(text)
        guard !host.isEmpty, host.utf8.count <= 64 else { return nil }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || isPort(after) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.firstIndex(of: ":"), host[host.index(after: colon)...].firstIndex(of: ":") == nil {
            // One colon: IPv4 with a port. Several: an IPv6 address without brackets (and so without a port).
            guard isPort(host[colon...]) else { return nil }
            host = host[..<colon]
        }
        return String(host).withCString { pointer -> String? in
            var v4 = in_addr()
            if inet_pton(AF_INET, pointer, &v4) == 1 { return format(AF_INET, &v4) }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, pointer, &v6) == 1 { return format(AF_INET6, &v6) }
            return nil
        }
    }

    /// ":1" to ":65535".
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        guard text.first == ":", !digits.isEmpty, digits.utf8.count <= 5, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let port = Int(digits) else { return false }
        return port >= 1 && port <= 65_535
    }

    private static func format(_ family: Int32, _ address: UnsafeRawPointer) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
