import Foundation
import LockCore
import Logging
import Testing

@testable import LockEnforcement

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DNSFilterEnforcerTests {
    static let settings = DNSForwarder.Settings(
        listenAddresses: ["127.0.0.1"], port: 0,
        mark: DNSForwarderTests.isRoot ? DNSForwarderTests.mark : nil)

    func makeEnforcer(_ servers: DNSResolver.Servers) -> DNSFilterEnforcer {
        DNSFilterEnforcer(
            settings: Self.settings, servers: servers, systemdUpstreamPath: "/nonexistent",
            logger: DNSForwarderTests.logger)
    }

    @Test func appliesTheDesiredRulesAndLiftsThem() async throws {
        let server = try DNSForwarderTests.upstream()
        defer { server.stop() }
        let enforcer = makeEnforcer(.configured(server.configuration()))
        let desired = DNSFilterPolicyTests.desired([DNSForwarderTests.rules])
        try await enforcer.apply(desired)
        let port = try await enforcer.start()
        let client = try DNSTestClient(port: port)
        let blocked = try #require(client.ask(DNSTestClient.query(id: 1, name: "www.blocked.test", type: 1)))
        #expect(DNSMessage(bytes: blocked)?.answers.map(\.data) == [[0, 0, 0, 0]])
        let excepted = try #require(client.ask(DNSTestClient.query(id: 2, name: "ok.blocked.test", type: 1)))
        #expect(DNSMessage(bytes: excepted)?.addresses.map(\.description) == ["198.18.0.3"])

        let report = await enforcer.status()
        #expect(report.name == "dns")
        #expect(report.applied)
        #expect(report.elements == 3)
        #expect(report.details["port"]?.description == String(port))
        #expect(report.details["blocked"]?.description == "1")
        #expect(report.details["forwarded"]?.description == "1")
        let firstApplied = report.lastApplied

        try await enforcer.apply(desired)
        #expect(await enforcer.status().lastApplied == firstApplied, "the same state again changes nothing")

        try await enforcer.apply(.empty)
        let lifted = try #require(client.ask(DNSTestClient.query(id: 3, name: "www.blocked.test", type: 1)))
        #expect(DNSMessage(bytes: lifted)?.addresses.map(\.description) == ["198.18.0.3"], "forwarded once the block ends")
        #expect(await enforcer.status().elements == 0)
        await enforcer.stop()
    }

    /// A local stub resolver as the upstream is the normal case (issue 24): redirected queries
    /// go to the server they were sent to, so its own upstream queries do not loop. Only where
    /// conntrack cannot say so (no CAP_NET_ADMIN) is the machine's DNS left alone, and said so.
    @Test func redirectsTheMachineToALoopbackUpstreamOnlyWhenQueriesGoWhereTheyWereSent() async throws {
        let server = try DNSForwarderTests.upstream()
        defer { server.stop() }
        let local = makeEnforcer(.configured(server.configuration()))
        try await local.apply(DNSFilterPolicyTests.desired([DNSForwarderTests.rules]))
        let report = await local.status()
        if report.details["redirectedQueriesGo"]?.description == "to the server each was sent to" {
            #expect(DNSForwarderTests.isRoot)
            #expect(local.redirect != nil)
            #expect(report.lastError == nil, "\(report.lastError ?? "")")
            guard case .blocks = await local.coverage(of: "www.blocked.test") else {
                Issue.record("the filter is on the machine's DNS path, yet check does not say it blocks")
                return
            }
        } else {
            #expect(local.redirect == nil)
            #expect(report.details["redirect"]?.description == "none")
            #expect(report.lastError?.contains("127.0.0.1:\(server.port) is on this machine") == true, "\(report.lastError ?? "")")
        }
        await local.stop()

        let remote = makeEnforcer(.configured(ResolverConfiguration(servers: [try .init(parsing: "192.0.2.53")])))
        #expect(remote.redirect == nil, "not before it listens")
        let port = try await remote.start()
        #expect(remote.redirect == DNSRedirect(port: port, mark: Self.settings.mark))
        await remote.stop()
        #expect(remote.redirect == nil, "not after it stopped")
    }

    @Test func upstreamComesFromResolvConf() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dns-filter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("resolv.conf").path
        try "nameserver 192.0.2.53\nnameserver 2001:db8::53\n".write(toFile: path, atomically: true, encoding: .utf8)
        let enforcer = makeEnforcer(.resolvConf(path: path))
        try await enforcer.apply(.empty)
        #expect(await enforcer.status().details["upstream"]?.description == "192.0.2.53 2001:db8::53")
        #expect(enforcer.redirect != nil)
        // resolv.conf changes (DHCP, VPN) are picked up at the next apply or refresh.
        try "nameserver 127.0.0.1\n".write(toFile: path, atomically: true, encoding: .utf8)
        try await enforcer.apply(DesiredBlock(domains: ["a.example"]))
        let report = await enforcer.status()
        #expect(report.details["upstream"]?.description == "127.0.0.1")
        // A local upstream keeps the redirect only where queries go to the server they were sent to.
        let followsOriginal = report.details["redirectedQueriesGo"]?.description == "to the server each was sent to"
        #expect((enforcer.redirect != nil) == followsOriginal)
        await enforcer.stop()
    }

    @Test func nftablesRedirectsOnlyWhileBlockingAndWhileTheFilterListens() async throws {
        let dns = makeEnforcer(.configured(ResolverConfiguration(servers: [try .init(parsing: "192.0.2.53")])))
        let backend = RecordingBackend()
        let firewall = NFTablesEnforcer(
            resolver: FakeResolver(), doh: .none, backend: backend,
            dnsRedirect: { dns.redirect }, logger: DNSForwarderTests.logger)
        let desired = DNSFilterPolicyTests.desired([DNSForwarderTests.rules])
        try await dns.apply(desired)
        try await firewall.apply(desired)
        await firewall.settle()
        let port = try #require(dns.redirect?.port)
        #expect(backend.scripts.last?.contains("th dport 53 redirect to :\(port)") == true)
        #expect(await firewall.status().details["dnsRedirect"]?.description == "port \(port)")
        try await firewall.apply(.empty)
        #expect(backend.scripts.last == "table inet simplylock\ndelete table inet simplylock\n")
        await dns.stop()
        try await firewall.apply(desired)
        await firewall.settle()
        #expect(backend.scripts.last?.contains("redirect") == false, "no redirect to a filter that does not listen")
    }
}
