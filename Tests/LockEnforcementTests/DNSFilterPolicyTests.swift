import Foundation
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

@Suite struct DNSFilterPolicyTests {
    static let now = ClockReading(wall: Date(timeIntervalSince1970: 1_700_000_000), boot: BootTime(seconds: 100), bootID: "b")

    static func desired(_ rules: [BlockRules]) -> DesiredBlock {
        SessionSet(
            rules.enumerated().map { index, rules in
                Session(
                    id: "s\(index)", profile: "p\(index)", origin: .manual, strict: false, rules: rules, duration: .seconds(60), now: now)
            }
        ).desiredBlock
    }

    @Test func blocksNamesSubdomainsAndHonoursExceptions() {
        let policy = DNSFilterPolicy(
            Self.desired([
                BlockRules(block: DomainSet(["blocked.test", "youtube.com"]), allow: DomainSet(["music.youtube.com", "ok.blocked.test"]))
            ]))
        #expect(policy.verdict(for: "blocked.test") == "blocked.test")
        #expect(policy.verdict(for: "a.b.blocked.test") == "blocked.test")
        #expect(policy.verdict(for: "BLOCKED.test.") == "blocked.test")
        #expect(policy.verdict(for: "m.youtube.com") == "youtube.com")
        #expect(policy.verdict(for: "music.youtube.com") == nil)
        #expect(policy.verdict(for: "x.ok.blocked.test") == nil)
        #expect(policy.verdict(for: "allowed.test") == nil)
        #expect(policy.verdict(for: "test") == nil)
        #expect(DNSFilterPolicy.empty.verdict(for: "blocked.test") == nil)
        #expect(DNSFilterPolicy.empty.isEmpty)
        #expect(policy.nameCount == 4)
    }

    @Test func allowlistSessionsBlockEverythingElse() {
        let policy = DNSFilterPolicy(Self.desired([BlockRules(block: DomainSet(["docs.example"]), mode: .allowlist)]))
        #expect(policy.verdict(for: "api.docs.example") == nil)
        #expect(policy.verdict(for: "reddit.com") == BlockRules.notAllowed)
    }

    @Test func aHandBuiltStateBlocksItsDomainsExactly() {
        let policy = DNSFilterPolicy(DesiredBlock(domains: ["a.example"]))
        #expect(policy.verdict(for: "a.example") == "a.example")
        #expect(policy.verdict(for: "x.a.example") == nil)
        #expect(DNSFilterPolicy(.empty).isEmpty)
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func agreesWithDesiredBlockVerdict(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let labels = ["a", "b", "c", "d", "xy"]
        func name(_ maxLabels: Int) -> String {
            (0..<Int.random(in: 1...maxLabels, using: &random)).map { _ in labels.randomElement(using: &random)! }.joined(separator: ".")
        }
        var sessions: [BlockRules] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let block = DomainSet((0..<Int.random(in: 0...12, using: &random)).map { _ in name(3) })
            let allow = DomainSet((0..<Int.random(in: 0...5, using: &random)).map { _ in name(4) })
            sessions.append(
                BlockRules(block: block, allow: allow, mode: Int.random(in: 0..<5, using: &random) == 0 ? .allowlist : .blocklist))
        }
        let desired = Self.desired(sessions)
        let policy = DNSFilterPolicy(desired, seed: seed)
        let rebuilt = DNSFilterPolicy(desired, reusing: policy)
        for _ in 0..<3_000 {
            let query = name(5)
            #expect(policy.verdict(for: query) == desired.verdict(for: query), "\(query) with seed \(seed)")
            #expect(rebuilt.verdict(for: query) == desired.verdict(for: query))
        }
    }

    @Test func importedListsBlockBesideTheSessions() {
        var parser = BlocklistParser(normalize: { $0.lowercased() })
        let builder = DomainSuffixSet.Builder()
        parser.parse(Array("0.0.0.0 ads.example\n||tracker.example^\nm.ads.example\n".utf8)) { builder.insert($0.name) }
        _ = parser.finish { builder.insert($0.name) }
        let list = builder.build()
        let policy = DNSFilterPolicy(Self.desired([BlockRules(block: DomainSet(["reddit.com"]))]), lists: [list, .empty])
        #expect(policy.verdict(for: "x.m.ads.example") == "ads.example")
        #expect(policy.verdict(for: "tracker.example") == "tracker.example")
        #expect(policy.verdict(for: "old.reddit.com") == "reddit.com")
        #expect(policy.verdict(for: "example") == nil)
        #expect(policy.nameCount == 3)
    }

    @Test func aLargeListIsCompact() {
        let names = (0..<200_000).map { "host\($0).example\($0 % 97).com" }
        let policy = DNSFilterPolicy(Self.desired([BlockRules(block: DomainSet(names))]))
        #expect(policy.nameCount == 200_000)
        // About 25 bytes of name and 16 of index per entry, far below a Set<String>'s ~90.
        #expect(policy.allocatedBytes < 200_000 * 50)
        #expect(policy.verdict(for: "x.host123.example26.com") == "host123.example26.com")
        #expect(policy.verdict(for: "x.host123.example27.com") == nil)
    }
}
