import Foundation
import LockCore
import Testing

@Suite struct IPNetworkTests {
    @Test(arguments: [
        ("203.0.113.0/24", "203.0.113.0/24", IPNetwork.Family.ipv4, 24),
        ("203.0.113.77/24", "203.0.113.0/24", .ipv4, 24),
        ("198.51.100.7", "198.51.100.7", .ipv4, 32),
        ("198.51.100.7/32", "198.51.100.7", .ipv4, 32),
        ("0.0.0.0/0", "0.0.0.0/0", .ipv4, 0),
        ("10.1.2.3/8", "10.0.0.0/8", .ipv4, 8),
        ("255.255.255.255", "255.255.255.255", .ipv4, 32),
        ("2001:db8::/32", "2001:db8::/32", .ipv6, 32),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1", .ipv6, 128),
        ("2001:db8:1234:5678::1/48", "2001:db8:1234::/48", .ipv6, 48),
        ("::", "::", .ipv6, 128),
        ("::1", "::1", .ipv6, 128),
        ("::/0", "::/0", .ipv6, 0),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1", .ipv6, 128),
        ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4", .ipv6, 128),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1", .ipv6, 128),
        ("::ffff:192.0.2.1", "::ffff:c000:201", .ipv6, 128),
        ("64:ff9b::198.51.100.7/120", "64:ff9b::c633:6400/120", .ipv6, 120),
        ("fe80::/10", "fe80::/10", .ipv6, 10),
        ("2606:4700:4700::1111", "2606:4700:4700::1111", .ipv6, 128),
    ])
    func parsesAndNormalises(input: String, canonical: String, family: IPNetwork.Family, prefix: Int) throws {
        let network = try IPNetwork(parsing: input)
        #expect(network.description == canonical)
        #expect(network.family == family)
        #expect(network.prefixLength == prefix)
        #expect(try IPNetwork(parsing: canonical) == network)
    }

    @Test(arguments: [
        ("", "empty value"),
        (" 1.2.3.4", "whitespace"),
        ("256.1.1.1", "not a valid IPv4 address"),
        ("1.2.3", "not a valid IPv4 address"),
        ("1.2.3.4.5", "not a valid IPv4 address"),
        ("01.2.3.4", "without leading zeros"),
        ("1.2.3.-4", "not a valid IPv4 address"),
        ("1.2.3.4/33", "prefix length 33 is out of range 0...32 for IPv4"),
        ("2001:db8::/129", "prefix length 129 is out of range 0...128 for IPv6"),
        ("1.2.3.4/", "prefix length \"\" is not a number"),
        ("1.2.3.4/abc", "prefix length \"abc\" is not a number"),
        ("1.2.3.4/-1", "is not a number"),
        ("1.2.3.4/24/8", "more than one \"/\""),
        ("1::2::3", "not a valid IPv6 address"),
        (":::", "not a valid IPv6 address"),
        ("1:2:3:4:5:6:7:8:9", "not a valid IPv6 address"),
        ("1:2:3:4:5:6:7", "not a valid IPv6 address"),
        ("gggg::", "not a valid IPv6 address"),
        ("12345::", "not a valid IPv6 address"),
        ("::1.2.3.4.5", "not a valid IPv6 address"),
        ("1.2.3.4::", "not a valid IPv6 address"),
        ("fe80::1%eth0", "zone indices"),
        ("example.com", "not a valid IPv4 address"),
    ])
    func rejectsWithMessageNamingTheValue(input: String, reason: String) {
        #expect {
            try IPNetwork(parsing: input)
        } throws: { error in
            guard let error = error as? IPNetworkError else { return false }
            return error.value == input && error.description.contains("\"\(input)\"")
                && error.description.contains(reason)
        }
    }

    @Test func rangesAndContainment() throws {
        let net = try IPNetwork(parsing: "203.0.113.0/24")
        #expect(net.address == 0xCB00_7100)
        #expect(net.lastAddress == 0xCB00_71FF)
        #expect(net.contains(try IPNetwork(parsing: "203.0.113.200")))
        #expect(net.contains(try IPNetwork(parsing: "203.0.113.128/25")))
        #expect(!net.contains(try IPNetwork(parsing: "203.0.112.0/23")))
        #expect(!net.contains(try IPNetwork(parsing: "::ffff:203.0.113.1")))
        let all6 = try IPNetwork(parsing: "::/0")
        #expect(all6.lastAddress == .max)
        #expect(all6.contains(try IPNetwork(parsing: "2001:db8::1")))
        #expect(try IPNetwork(parsing: "0.0.0.0/0").lastAddress == 0xFFFF_FFFF)
        #expect(try IPNetwork(parsing: "2001:db8::1").isSingleAddress)
        #expect(!net.isSingleAddress)
    }

    @Test func programmaticInitClearsHostBitsAndChecksLimits() throws {
        let net = try IPNetwork(family: .ipv4, address: 0xC000_02FF, prefixLength: 24)
        #expect(net.description == "192.0.2.0/24")
        #expect(try IPNetwork(family: .ipv6, address: 1).description == "::1")
        #expect(throws: IPNetworkError.self) { try IPNetwork(family: .ipv4, address: 1, prefixLength: 33) }
        #expect(throws: IPNetworkError.self) { try IPNetwork(family: .ipv4, address: 1 << 40) }
    }

    @Test func ordersIPv4FirstThenByAddressThenWiderFirst() throws {
        let values = try ["2001:db8::1", "10.0.0.0/8", "10.0.0.0/16", "9.9.9.9", "::"].map(IPNetwork.init(parsing:))
        #expect(values.sorted().map(\.description) == ["9.9.9.9", "10.0.0.0/8", "10.0.0.0/16", "::", "2001:db8::1"])
    }

    @Test func codableAsCanonicalString() throws {
        let values = try ["203.0.113.9/24", "2001:db8::/32"].map(IPNetwork.init(parsing:))
        let data = try JSONEncoder().encode(values)
        #expect(String(decoding: data, as: UTF8.self) == #"["203.0.113.0\/24","2001:db8::\/32"]"#)
        #expect(try JSONDecoder().decode([IPNetwork].self, from: data) == values)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([IPNetwork].self, from: Data(#"["300.1.1.1"]"#.utf8))
        }
    }
}
