import LockCore
import Testing

@testable import LockEnforcement

@Suite struct AddressIntervalsTests {
    private func intervals(_ texts: [String]) throws -> AddressIntervals {
        AddressIntervals(try texts.map(IPNetwork.init(parsing:)))
    }

    @Test func mergesOverlappingAndAdjacentNetworks() throws {
        let set = try intervals([
            "10.0.0.128/25", "10.0.0.0/25", "10.0.0.7", "192.0.2.1", "192.0.2.2", "192.0.2.3",
            "198.51.100.0/24", "198.51.100.9", "2001:db8::/33", "2001:db8:8000::/33", "2001:db8::1",
        ])
        #expect(set.elements(.ipv4) == ["10.0.0.0/24", "192.0.2.1-192.0.2.3", "198.51.100.0/24"])
        #expect(set.elements(.ipv6) == ["2001:db8::/32"])
        #expect(set.count == 4)
    }

    @Test func keepsSeparateWhatDoesNotTouch() throws {
        let set = try intervals(["192.0.2.1", "192.0.2.3", "::1", "::3"])
        #expect(set.elements(.ipv4) == ["192.0.2.1", "192.0.2.3"])
        #expect(set.elements(.ipv6) == ["::1", "::3"])
    }

    @Test func rendersWholeFamiliesAndAlignedBlocks() throws {
        #expect(try intervals(["0.0.0.0/0", "10.0.0.0/8"]).elements(.ipv4) == ["0.0.0.0/0"])
        #expect(try intervals(["::/0", "2001:db8::/32"]).elements(.ipv6) == ["::/0"])
        #expect(try intervals(["10.0.0.2", "10.0.0.3"]).elements(.ipv4) == ["10.0.0.2/31"])
        #expect(try intervals(["10.0.0.1", "10.0.0.2"]).elements(.ipv4) == ["10.0.0.1-10.0.0.2"])
        #expect(try intervals(["255.255.255.254/31"]).elements(.ipv4) == ["255.255.255.254/31"])
        #expect(
            try intervals(["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]).elements(.ipv6)
                == ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"])
    }

    @Test func containment() throws {
        let set = try intervals(["203.0.113.0/24", "198.51.100.7", "2001:db8::/32"])
        #expect(set.contains(try IPNetwork(parsing: "203.0.113.77")))
        #expect(set.contains(try IPNetwork(parsing: "198.51.100.7")))
        #expect(!set.contains(try IPNetwork(parsing: "198.51.100.8")))
        #expect(set.contains(try IPNetwork(parsing: "2001:db8:ffff::1")))
        #expect(!set.contains(try IPNetwork(parsing: "2001:db9::1")))
        #expect(!AddressIntervals.empty.contains(try IPNetwork(parsing: "1.1.1.1")))
    }

    @Test func keepsHundredThousandSeparateAddressesApart() throws {
        let networks = (0..<100_000).map { try! IPNetwork(family: .ipv4, address: UInt128(0x0A00_0000 + 2 * $0)) }
        let set = AddressIntervals(networks.shuffled())
        #expect(set.count == 100_000)
        #expect(set.contains(networks[99_999]))
        #expect(!set.contains(try IPNetwork(family: .ipv4, address: UInt128(0x0A00_0001))))
    }
}
