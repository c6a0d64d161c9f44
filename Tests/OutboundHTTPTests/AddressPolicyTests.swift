import Testing
@testable import OutboundHTTP

/// Which addresses a request may go to: public unicast only, whatever way it is written.
@Suite struct AddressPolicyTests {
    static let refused = [
        "0.0.0.0", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.8.9.10", "169.254.169.254", "172.16.0.1", "172.31.255.255",
        "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1", "198.18.0.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
        "240.0.0.1", "255.255.255.255",
        "::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1", "64:ff9b::a00:1", "2002:a00:1::1",
        "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1", "100::1", "2001::1", "2001:db8::1", "3fff::1",
    ]
    static let allowed = [
        "1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "198.17.255.255", "223.255.255.254",
        "2606:4700:4700::1111", "2a00:1450:4007::200e", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
    ]

    @Test(arguments: refused)
    func aNonPublicAddressIsRefused(_ text: String) throws {
        let bytes = try #require(AddressPolicy.bytes(of: text))
        #expect(!AddressPolicy().allows(bytes))
    }

    @Test(arguments: allowed)
    func aPublicAddressIsAllowed(_ text: String) throws {
        let bytes = try #require(AddressPolicy.bytes(of: text))
        #expect(AddressPolicy().allows(bytes))
    }

    @Test func loopbackIsAllowedOnlyWhenAskedAndNothingElsePrivateIs() throws {
        let policy = AddressPolicy(allowsLoopback: true)
        #expect(policy.allows(try #require(AddressPolicy.bytes(of: "127.0.0.1"))))
        #expect(policy.allows(try #require(AddressPolicy.bytes(of: "::1"))))
        #expect(!policy.allows(try #require(AddressPolicy.bytes(of: "10.0.0.1"))))
        #expect(!policy.allows(try #require(AddressPolicy.bytes(of: "169.254.169.254"))))
        #expect(AddressPolicy.bytes(of: "example.org") == nil && AddressPolicy.bytes(of: "1.2.3") == nil)
        #expect(!AddressPolicy().allows([1, 2, 3]))
    }
}
