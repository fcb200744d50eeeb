import LockCore
import Testing

@testable import LockEnforcement

@Suite struct ResolverConfigurationTests {
    @Test func readsNameserversAndOptions() {
        let text = """
            # written by NetworkManager
            search lan example.org
            nameserver 192.0.2.53 # home router
            nameserver 2001:db8::53
            nameserver fe80::1%eth9
            nameserver fe80::2%7
            nameserver not-an-address
            nameserver 203.0.113.0/24
            ; comment
            options edns0 timeout:3 attempts:4 rotate
            """
        let configuration = ResolverConfiguration.parse(resolvConf: text) { $0 == "eth9" ? 3 : nil }
        #expect(configuration.servers.map(\.description) == ["192.0.2.53", "2001:db8::53", "fe80::1", "fe80::2"])
        #expect(configuration.servers.map(\.scopeID) == [0, 0, 3, 7])
        #expect(configuration.timeout == .seconds(3))
        #expect(configuration.attempts == 4)
    }

    @Test func capsTimeoutsAndDefaultsToTheLocalMachine() {
        let configuration = ResolverConfiguration.parse(resolvConf: "options timeout:30 attempts:9\n")
        #expect(configuration.servers.map(\.description) == ["127.0.0.1"])
        #expect(configuration.timeout == ResolverConfiguration.maximumTimeout)
        #expect(configuration.attempts == 5)
    }

    @Test func recognisesTheSystemdStub() {
        #expect(ResolverConfiguration.parse(resolvConf: "nameserver 127.0.0.53\noptions edns0 trust-ad\n").isSystemdStubOnly)
        #expect(ResolverConfiguration.parse(resolvConf: "nameserver 127.0.0.54\n").isSystemdStubOnly)
        #expect(!ResolverConfiguration.parse(resolvConf: "nameserver 127.0.0.53\nnameserver 9.9.9.9\n").isSystemdStubOnly)
        #expect(!ResolverConfiguration.parse(resolvConf: "nameserver 127.0.0.1\n").isSystemdStubOnly)
    }

    @Test(arguments: [
        ("9.9.9.9", "9.9.9.9", UInt16(53)),
        ("9.9.9.9:5353", "9.9.9.9:5353", 5353),
        ("2620:fe::fe", "2620:fe::fe", 53),
        ("[2620:fe::fe]:5353", "[2620:fe::fe]:5353", 5353),
        ("[2620:fe::fe]", "2620:fe::fe", 53),
    ])
    func parsesConfiguredServers(text: String, description: String, port: UInt16) throws {
        let server = try ResolverConfiguration.Server(parsing: text)
        #expect(server.description == description)
        #expect(server.port == port)
    }

    @Test(arguments: ["9.9.9.9:0", "9.9.9.9:70000", "[2620:fe::fe", "[2620:fe::fe]x", "192.0.2.0/24", "dns.google"])
    func rejectsBadServers(text: String) {
        #expect(throws: IPNetworkError.self) { try ResolverConfiguration.Server(parsing: text) }
    }
}
