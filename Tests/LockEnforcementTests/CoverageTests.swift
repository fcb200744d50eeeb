import Foundation
import LockCore
import Logging
import TestSupport
import Testing

@testable import LockEnforcement

/// What each enforcer says it really blocks (`lockctl check`), and the DNS filter's policy with
/// imported lists.
@Suite struct CoverageTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func list(_ name: String, version: String = "00000000000000a1", block: [String], allow: [String] = []) -> Blocklist {
        let info = BlocklistInfo(
            name: name, version: version, source: "-", importedAt: Date(), names: block.count,
            exceptions: allow.count, report: BlocklistReport())
        return Blocklist(reference: info.reference, block: DomainSuffixSet(block), allow: DomainSuffixSet(allow), info: info)
    }

    static let ads = list("ads", block: ["ads.example", "tracker.example.net"], allow: ["ok.ads.example"])
    static let resolve: @Sendable (BlocklistReference) -> Blocklist? = { $0 == ads.reference ? ads : nil }

    static func desired(_ rules: [BlockRules]) -> DesiredBlock { DNSFilterPolicyTests.desired(rules) }

    @Test func theDNSPolicyBlocksListNamesAndWeighsBothKindsOfException() {
        let rules = BlockRules(
            block: DomainSet(["reddit.com"]), allow: DomainSet(["keep.tracker.example.net"]), lists: [Self.ads.reference])
        let policy = DNSFilterPolicy(Self.desired([rules]), resolve: Self.resolve)
        #expect(policy.verdict(for: "m.ads.example") == "ads.example")
        #expect(policy.verdict(for: "ok.ads.example") == nil)
        #expect(policy.verdict(for: "keep.tracker.example.net") == nil)
        #expect(policy.verdict(for: "a.tracker.example.net.") == "tracker.example.net")
        #expect(policy.verdict(for: "old.reddit.com") == "reddit.com")
        #expect(policy.explain("x.ads.example")?.list == Self.ads.reference)
        #expect(policy.explain("old.reddit.com")?.list == nil)
        #expect(policy.heldLists == [Self.ads.reference])
        #expect(policy.nameCount == 1 + 1 + 2 + 1)
        #expect(policy.allocatedBytes < Self.ads.block.allocatedBytes * 4, "the list is shared, not copied into the policy")
    }

    @Test func aListVersionThatIsNotLoadedIsReportedAndBlocksNothing() {
        let missing = BlocklistReference(name: "gone", version: "00000000000000ff")
        let policy = DNSFilterPolicy(Self.desired([BlockRules(block: DomainSet([]), lists: [missing])]), resolve: Self.resolve)
        #expect(policy.missingLists == [missing])
        #expect(policy.verdict(for: "anything.example") == nil)
        let again = DNSFilterPolicy(
            Self.desired([BlockRules(block: DomainSet(["a.example"]), lists: [missing])]), resolve: Self.resolve,
            reusing: policy)
        #expect(again.missingLists == [missing])
    }

    @Test(arguments: [7, 8, 9] as [UInt64])
    func thePolicyAgreesWithTheRulesVerdictWithLists(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let labels = ["a", "b", "c", "xy"]
        func name(_ maxLabels: Int) -> String {
            (0..<Int.random(in: 1...maxLabels, using: &random)).map { _ in labels[Int.random(in: 0...labels.count - 1, using: &random)] }
                .joined(separator: ".")
        }
        let lists = (0..<3).map { index in
            Self.list(
                "l\(index)", version: "000000000000000\(index)", block: (0..<Int.random(in: 1...8, using: &random)).map { _ in name(3) },
                allow: (0..<Int.random(in: 0...3, using: &random)).map { _ in name(4) })
        }
        let sessions = (0..<Int.random(in: 1...3, using: &random)).map { _ in
            BlockRules(
                block: DomainSet((0..<Int.random(in: 0...6, using: &random)).map { _ in name(3) }),
                allow: DomainSet((0..<Int.random(in: 0...3, using: &random)).map { _ in name(4) }),
                lists: lists.filter { _ in Int.random(in: 0...1, using: &random) == 1 }.map(\.reference))
        }
        let resolve: (BlocklistReference) -> Blocklist? = { reference in lists.first { $0.reference == reference } }
        let desired = Self.desired(sessions)
        let policy = DNSFilterPolicy(desired, resolve: resolve, seed: seed)
        for _ in 0..<300 {
            let query = name(5)
            #expect(policy.verdict(for: query) == desired.verdict(for: query, lists: resolve), "\(query)")
        }
    }

    @Test func theHostsFileCoversExactNamesOnlyAndSaysSo() async throws {
        let directory = NSTemporaryDirectory() + "coverage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: directory + "/hosts"))
        let hosts = HostsFileEnforcer(path: directory + "/hosts", maxNames: 4, logger: Self.logger)
        #expect(await hosts.coverage(of: "reddit.com")?.blocks == false)
        let rules = BlockRules(block: DomainSet(["reddit.com", "a.example", "b.example"]), lists: [Self.ads.reference])
        let desired = Self.desired([rules])
        #expect(desired.domains == ["a.example", "b.example", "reddit.com", "www.a.example", "www.b.example", "www.reddit.com"])
        try await hosts.apply(desired)
        #expect(await hosts.coverage(of: "a.example") == .blocks("listed in \(directory)/hosts"))
        #expect(await hosts.coverage(of: "www.a.example")?.blocks == true)
        #expect(await hosts.coverage(of: "a.example.")?.detail.contains("trailing-dot") == true)
        let capped = try #require(await hosts.coverage(of: "www.reddit.com"))
        #expect(!capped.blocks && capped.detail.contains("hosts_max_names"), "\(capped)")
        let subdomain = try #require(await hosts.coverage(of: "m.a.example"))
        #expect(!subdomain.blocks && subdomain.detail.contains("exact names only"), "\(subdomain)")
        #expect(await hosts.coverage(of: "m.ads.example")?.blocks == false, "list names never go to the hosts file")
        let file = try String(contentsOfFile: directory + "/hosts", encoding: .utf8)
        #expect(file.contains("reddit.com") && !file.contains("www.reddit.com") && !file.contains("ads.example"))
        let status = await hosts.status()
        #expect(status.details["capped"]?.description.contains("first 4 of 6") == true)
        #expect(hosts.scope?.misses.contains("dns enforcer") == true)
    }

    @Test func theDNSFilterCoversSubtreesOnlyWhileTheMachinesDNSReachesIt() async throws {
        let upstream = DNSResolver.Servers.configured(ResolverConfiguration(servers: [try .init(parsing: "192.0.2.53")]))
        let settings = DNSForwarder.Settings(
            listenAddresses: ["127.0.0.1"], port: 0, mark: DNSForwarderTests.isRoot ? DNSForwarderTests.mark : nil)
        let redirected = DNSFilterEnforcer(
            settings: settings, servers: upstream, systemdUpstreamPath: "/nonexistent",
            lists: Self.resolve, redirected: true, logger: Self.logger)
        let alone = DNSFilterEnforcer(
            settings: settings, servers: upstream, systemdUpstreamPath: "/nonexistent",
            lists: Self.resolve, redirected: false, logger: Self.logger)
        do { try await checkDNSCoverage(redirected, alone) } catch {
            await redirected.stop()
            await alone.stop()
            throw error
        }
        await redirected.stop()
        await alone.stop()
    }

    private func checkDNSCoverage(_ redirected: DNSFilterEnforcer, _ alone: DNSFilterEnforcer) async throws {
        #expect(await redirected.coverage(of: "reddit.com")?.detail.contains("not listening") == true)
        let desired = Self.desired([BlockRules(block: DomainSet(["reddit.com"]), lists: [Self.ads.reference])])
        try await redirected.apply(desired)
        try await alone.apply(desired)
        let sub = try #require(await redirected.coverage(of: "m.reddit.com"))
        #expect(sub.blocks && sub.detail.contains("rule reddit.com"), "\(sub)")
        let listed = try #require(await redirected.coverage(of: "x.tracker.example.net."))
        #expect(listed.blocks && listed.detail.contains("list ads"), "\(listed)")
        #expect(await redirected.coverage(of: "ok.ads.example")?.blocks == false)
        let unreached = try #require(await alone.coverage(of: "m.reddit.com"))
        #expect(!unreached.blocks && unreached.detail.contains("needs the nftables enforcer"), "\(unreached)")
        #expect(await redirected.status().details["lists"]?.description == Self.ads.reference.description)
    }

    @Test func theFirewallCoversTheResolvedAddressesOfExactNames() async throws {
        let backend = RecordingBackend()
        let resolver = FakeResolver()
        resolver.set("reddit.com", ["203.0.113.5"])
        let firewall = NFTablesEnforcer(
            resolver: resolver, doh: DoHList(names: [], addresses: []), backend: backend,
            settings: .init(), logger: Self.logger, bootClock: ManualClock().reading)
        #expect(await firewall.coverage(of: "reddit.com")?.blocks == false)
        try await firewall.apply(DesiredBlock(domains: ["reddit.com", "www.reddit.com"]))
        let unresolved = try #require(await firewall.coverage(of: "www.reddit.com"))
        #expect(!unresolved.blocks && unresolved.detail.contains("no address"), "\(unresolved)")
        await firewall.settle()
        let resolved = try #require(await firewall.coverage(of: "reddit.com"))
        #expect(resolved.blocks && resolved.detail.contains("203.0.113.5"), "\(resolved)")
        let sub = try #require(await firewall.coverage(of: "m.reddit.com"))
        #expect(!sub.blocks && sub.detail.contains("not those of names under it"), "\(sub)")
        try await firewall.apply(DesiredBlock(allowOnly: AllowList(domains: ["docs.example"])))
        #expect(await firewall.coverage(of: "reddit.com")?.blocks == true)
        #expect(await firewall.coverage(of: "docs.example")?.blocks == false)
    }
}
