import Foundation
import LockCore
import Testing

@testable import LockEnforcement

@Suite struct DoHListTests {
    @Test func bundledListHasTheWellKnownEndpoints() throws {
        // The list the package ships in its data directory.
        let list = try DoHList.load(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../config/doh.txt").standardized)
        for name in ["dns.google", "cloudflare-dns.com", "mozilla.cloudflare-dns.com", "dns.quad9.net", "doh.opendns.com"] {
            #expect(list.names.contains(name), "\(name)")
        }
        for address in [
            "8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "2001:4860:4860::8888",
            "2606:4700:4700::1111", "2620:fe::fe",
        ] {
            #expect(list.addresses.contains(try IPNetwork(parsing: address)), "\(address)")
        }
        // Firefox's canary belongs to the hosts enforcer, not the firewall.
        #expect(!list.names.contains("use-application-dns.net"))
        #expect(list.names == list.names.sorted())
    }

    @Test func parsesCommentsBlanksAndMixedEntries() throws {
        let list = try DoHList(
            parsing: """
                # header
                DNS.Example   # trailing comment

                192.0.2.0/24
                2001:db8::53
                dns.example
                """)
        #expect(list.names == ["dns.example"])
        #expect(list.addresses.map(\.description) == ["192.0.2.0/24", "2001:db8::53"])
    }

    @Test func aMistypedAddressIsNotTakenForAName() {
        #expect(throws: DoHListError.self) { try DoHList(parsing: "300.1.1.1\n") }
    }

    @Test func reportsTheLineOfABadEntry() {
        #expect {
            try DoHList(parsing: "dns.example\n\n300.1.1.1/8\n", source: "/etc/simplylock/doh.txt")
        } throws: { error in
            (error as? DoHListError)?.description
                == "/etc/simplylock/doh.txt:3: \"300.1.1.1/8\" is neither a host name nor an IP address or network"
        }
    }
}
