import Foundation
import LockCore
import Synchronization
import Testing

@testable import LockEnforcement

/// The real resolver against a scripted DNS server on loopback.
@Suite struct DNSResolverTests {
    @Test func resolvesAAndAAAAFollowsCNAMEsAndTellsFailuresApart() async throws {
        let server = try DNSTestServer { name, _ in
            switch name {
            case "both.example": .answer(["192.0.2.1", "192.0.2.2", "2001:db8::1"])
            case "alias.example": .cname("target.cdn.example", ["198.51.100.7", "2001:db8::7"])
            case "missing.example": .nxdomain
            case "broken.example": .servfail
            case "silent.example": .drop
            case "big.example": .truncate(["203.0.113.1", "203.0.113.2"])
            case "old.example": .noEDNS(["203.0.113.9"])
            default: .nxdomain
            }
        }
        defer { server.stop() }
        let resolver = DNSResolver(servers: .configured(server.configuration()), deadline: .seconds(5))
        let names = [
            "both.example", "alias.example", "missing.example", "broken.example", "silent.example",
            "big.example", "old.example",
        ]
        let results = await resolver.resolve(names)
        #expect(Set(results.keys) == Set(names))
        #expect(
            results["both.example"]
                == NameResolution(addresses: ["192.0.2.1", "192.0.2.2", "2001:db8::1"].map { try! IPNetwork(parsing: $0) }))
        #expect(results["alias.example"]?.addresses.map(\.description) == ["198.51.100.7", "2001:db8::7"])
        #expect(results["alias.example"]?.isComplete == true)
        #expect(results["missing.example"] == NameResolution())
        #expect(results["broken.example"]?.error?.contains("response code 2") == true)
        #expect(results["silent.example"]?.error?.contains("no answer from 127.0.0.1") == true)
        #expect(results["big.example"]?.addresses.map(\.description) == ["203.0.113.1", "203.0.113.2"])
        #expect(results["big.example"]?.isComplete == true)
        #expect(server.tcpQueries == 2, "A and AAAA of big.example went over TCP")
        #expect(results["old.example"]?.addresses.map(\.description) == ["203.0.113.9"])
        #expect(await resolver.nameservers().map(\.description) == ["127.0.0.1"])
    }

    @Test func asksDNSNotTheHostsFile() async throws {
        // /etc/hosts maps localhost to 127.0.0.1; a resolver reading it would return that.
        let server = try DNSTestServer { _, _ in .answer(["192.0.2.99"]) }
        defer { server.stop() }
        let resolver = DNSResolver(servers: .configured(server.configuration()))
        let results = await resolver.resolve(["localhost"])
        #expect(results["localhost"]?.addresses.map(\.description) == ["192.0.2.99"])
        #expect(server.names.contains("localhost"))
    }

    // How fast it is belongs to the benchmark (scripts/bench-nftables.sh); this checks that
    // thousands of names in flight at once all come back right.
    @Test func resolvesThousandsOfNamesConcurrently() async throws {
        let server = try DNSTestServer { name, _ in
            let number = Int(name.split(separator: ".")[0].dropFirst(4)) ?? 0
            return .answer(["10.\(number >> 16 & 255).\(number >> 8 & 255).\(number & 255)"])
        }
        defer { server.stop() }
        let names = (0..<3000).map { "name\($0).example" }
        let resolver = DNSResolver(
            servers: .configured(server.configuration(timeout: .seconds(2))),
            deadline: .seconds(30), maxInFlight: 128)
        let results = await resolver.resolve(names)
        #expect(results.count == 3000)
        #expect(results.values.allSatisfy { $0.isComplete && $0.addresses.count == 1 })
        #expect(results["name2999.example"]?.addresses.first?.description == "10.0.11.183")
    }

    @Test func theDeadlineBoundsARunAgainstASilentServer() async throws {
        let server = try DNSTestServer { _, _ in .drop }
        defer { server.stop() }
        let resolver = DNSResolver(
            servers: .configured(server.configuration(timeout: .seconds(2), attempts: 3)),
            deadline: .milliseconds(500))
        // With 2 s per try and 3 tries, only the 0.5 s deadline can end the run with every
        // name failed for that reason.
        let results = await resolver.resolve((0..<50).map { "n\($0).example" })
        #expect(results.count == 50)
        #expect(results.values.allSatisfy { $0.error?.contains("deadline") == true })
    }

    @Test func fallsBackToTheNextServer() async throws {
        let silent = try DNSTestServer { _, _ in .drop }
        let good = try DNSTestServer { _, _ in .answer(["192.0.2.5"]) }
        defer {
            silent.stop()
            good.stop()
        }
        let configuration = ResolverConfiguration(
            servers: silent.configuration().servers + good.configuration().servers,
            timeout: .milliseconds(200), attempts: 1)
        let resolver = DNSResolver(servers: .configured(configuration), deadline: .seconds(5))
        let results = await resolver.resolve(["a.example"])
        #expect(results["a.example"] == NameResolution(addresses: [try IPNetwork(parsing: "192.0.2.5")]))
        #expect(silent.udpQueries == 2 && good.udpQueries == 2)
    }

    @Test func invalidNamesFailWithoutAQuery() async throws {
        let server = try DNSTestServer { _, _ in .answer(["192.0.2.5"]) }
        defer { server.stop() }
        let resolver = DNSResolver(servers: .configured(server.configuration()))
        let results = await resolver.resolve(["bad name.example"])
        #expect(results["bad name.example"]?.error?.contains("not a valid host name") == true)
        #expect(server.udpQueries == 0)
    }

    @Test func readsResolvConfAndFollowsSystemdResolvedUpstreams() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resolv-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = directory.appendingPathComponent("resolv.conf")
        let upstream = directory.appendingPathComponent("upstream.conf")
        try "nameserver 127.0.0.53\noptions edns0 trust-ad\n".write(to: stub, atomically: true, encoding: .utf8)
        try "nameserver 192.0.2.53\nnameserver 2001:db8::53\n".write(to: upstream, atomically: true, encoding: .utf8)
        let resolver = DNSResolver(servers: .resolvConf(path: stub.path), systemdUpstreamPath: upstream.path)
        #expect(resolver.configuration().servers.map(\.description) == ["192.0.2.53", "2001:db8::53"])
        let noUpstream = DNSResolver(
            servers: .resolvConf(path: stub.path), systemdUpstreamPath: directory.appendingPathComponent("none").path)
        #expect(noUpstream.configuration().servers.map(\.description) == ["127.0.0.53"])
    }

    /// Behind a local stub whose upstream the DNS filter answers (0.0.0.0 for blocked names), the
    /// resolver asks the stub's own upstream, learnt meanwhile, for the names that came back sinkholed.
    @Test func behindAStubSinkholedNamesAreAskedOfItsLearntUpstream() async throws {
        let stub = try DNSTestServer { name, _ in name == "blocked.example" ? .answer(["0.0.0.0", "::"]) : .answer(["192.0.2.8"]) }
        let upstream = try DNSTestServer { _, _ in .answer(["203.0.113.5", "2001:db8::5"]) }
        defer {
            stub.stop()
            upstream.stop()
        }
        let learnt = Mutex<[ResolverConfiguration.Server]>([])
        let resolver = DNSResolver(servers: .configured(stub.configuration()), stubUpstreams: { learnt.withLock { $0 } })
        // Nothing learnt yet: the stub answers, and blocked.example comes back as a sinkhole.
        let first = await resolver.resolve(["blocked.example", "other.example"])
        #expect(first["blocked.example"]?.isSinkholed == true)
        #expect(first["other.example"]?.addresses.map(\.description) == ["192.0.2.8"])
        // Its upstream learnt: only the sinkholed name is asked again, of the upstream.
        learnt.withLock { $0 = upstream.configuration().servers }
        let again = await resolver.resolve(["blocked.example", "other.example"])
        #expect(again["blocked.example"]?.addresses.map(\.description) == ["203.0.113.5", "2001:db8::5"])
        #expect(Set(upstream.names) == ["blocked.example", "other.example"], "the stub is no longer asked once its upstream is known")
        #expect(Set(await resolver.nameservers().map(\.description)) == ["127.0.0.1"])
    }
}
