import Foundation

/// An address Parlor may send a request to, with the one IP address it may be sent to: what every outbound request
/// is sent through (``OutboundClient``). Only http and https on the policy's ports; the host resolved here and
/// checked against the ``AddressPolicy``, then connected to at exactly the address checked (no second lookup a
/// rebinding DNS server could answer differently).
public struct OutboundAddress: Sendable, Hashable {
    public let url: String
    /// The host as the address names it (brackets kept around an IPv6 literal).
    public let host: String
    /// The address checked, in text.
    public let address: String

    /// Checks `url`'s scheme and port, resolves its host and picks an address `policy` allows; `schemes` are
    /// the ones accepted (a push service: https only, unless the policy allows loopback for tests).
    public static func pinned(
        _ url: String, policy: AddressPolicy, schemes: Set<String> = ["http", "https"], resolver: HostResolver = .shared
    ) async throws(OutboundError) -> OutboundAddress {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), schemes.contains(scheme),
              let rawHost = components.host, !rawHost.isEmpty, components.user == nil
        else { throw .invalidAddress }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard policy.ports.contains(port) else { throw .portNotAllowed(port) }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let candidates: [[UInt8]]
        if let literal = AddressPolicy.bytes(of: host) {
            candidates = [literal]
        } else {
            candidates = await resolver.addresses(of: host)
            guard !candidates.isEmpty else { throw .hostNotFound(host) }
        }
        guard let allowed = candidates.first(where: policy.allows) else { throw .addressNotPublic(host) }
        return OutboundAddress(url: url, host: rawHost, address: HostResolver.text(of: allowed))
    }
}
