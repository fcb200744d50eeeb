import Foundation
import LockCore
import Testing

@Suite struct DesiredBlockTests {
    @Test func sortsAndDeduplicates() throws {
        let block = DesiredBlock(
            domains: ["b.com", "a.com", "b.com"],
            addresses: try ["203.0.113.9/24", "203.0.113.0/24", "2001:db8::/32"].map(IPNetwork.init(parsing:)),
            allowOnly: AllowList(domains: ["z.org", "y.org", "z.org"], addresses: [try IPNetwork(parsing: "198.51.100.1")]))
        #expect(block.domains == ["a.com", "b.com"])
        #expect(block.addresses.map(\.description) == ["203.0.113.0/24", "2001:db8::/32"])
        #expect(block.allowOnly?.domains == ["y.org", "z.org"])
    }

    @Test func emptiness() throws {
        #expect(DesiredBlock.empty.isEmpty)
        #expect(!DesiredBlock(domains: ["a.com"]).isEmpty)
        #expect(!DesiredBlock(addresses: [try IPNetwork(parsing: "192.0.2.1")]).isEmpty)
        // An allowlist with nothing allowed is the strictest block there is, not "nothing".
        #expect(!DesiredBlock(allowOnly: AllowList()).isEmpty)
    }

    @Test func decodesStateWrittenBeforeAddressesExisted() throws {
        let old = Data(#"{"domains":["b.com","a.com"]}"#.utf8)
        let block = try JSONDecoder().decode(DesiredBlock.self, from: old)
        #expect(block == DesiredBlock(domains: ["a.com", "b.com"]))
        #expect(block.addresses.isEmpty)
        #expect(block.allowOnly == nil)
    }

    @Test func roundTrips() throws {
        let block = DesiredBlock(
            domains: ["a.com"], addresses: [try IPNetwork(parsing: "2001:db8::/32")],
            allowOnly: AllowList(domains: ["docs.example"]))
        let data = try JSONEncoder().encode(block)
        #expect(try JSONDecoder().decode(DesiredBlock.self, from: data) == block)
        let plain = try JSONEncoder().encode(DesiredBlock(domains: ["a.com"]))
        #expect(!String(decoding: plain, as: UTF8.self).contains("allowOnly"))
    }

    @Test func verdictFollowsEachSessionsRules() {
        let social = BlockRules(block: DomainSet(["reddit.com", "youtube.com"]), allow: DomainSet(["music.youtube.com"]))
        let news = BlockRules(block: DomainSet(["news.example", "music.youtube.com"]))
        let block = SessionSet.desiredBlock(of: [social])
        #expect(block.verdict(for: "reddit.com") == "reddit.com")
        #expect(block.verdict(for: "a.b.Reddit.COM.") == "reddit.com")
        #expect(block.verdict(for: "m.youtube.com") == "youtube.com")
        #expect(block.verdict(for: "music.youtube.com") == nil, "the session's own exception")
        #expect(block.verdict(for: "x.music.youtube.com") == nil)
        #expect(block.verdict(for: "example.org") == nil)
        #expect(block.verdict(for: "") == nil)
        // Another session's exception never unblocks what this one blocks.
        let both = SessionSet.desiredBlock(of: [social, news])
        #expect(both.verdict(for: "music.youtube.com") == "music.youtube.com")
        #expect(both.rules.count == 2)
    }

    @Test func verdictInAllowlistMode() {
        let work = BlockRules(block: DomainSet(["docs.example", "mail.example"]), mode: .allowlist)
        let narrower = BlockRules(block: DomainSet(["docs.example"]), mode: .allowlist)
        let one = SessionSet.desiredBlock(of: [work])
        #expect(one.verdict(for: "docs.example") == nil)
        #expect(one.verdict(for: "api.mail.example") == nil)
        #expect(one.verdict(for: "reddit.com") == BlockRules.notAllowed)
        let two = SessionSet.desiredBlock(of: [work, narrower])
        #expect(two.verdict(for: "docs.example") == nil)
        #expect(two.verdict(for: "mail.example") == BlockRules.notAllowed, "a name must be on every allowlist")
    }

    @Test func verdictOfAHandBuiltStateIsExact() {
        let block = DesiredBlock(domains: ["a.example", "c.example"])
        #expect(block.verdict(for: "A.example.") == "a.example")
        #expect(block.verdict(for: "b.example") == nil)
        #expect(block.verdict(for: "x.a.example") == nil)
        #expect(!block.isEmpty)
        #expect(DesiredBlock(rules: [BlockRules(block: DomainSet([]))]).isEmpty)
    }

    @Test func rulesRoundTripAndOldStateDecodes() throws {
        let block = SessionSet.desiredBlock(of: [BlockRules(block: DomainSet(["a.com"]), allow: DomainSet(["b.a.com"]))])
        let decoded = try JSONDecoder().decode(DesiredBlock.self, from: try JSONEncoder().encode(block))
        #expect(decoded == block)
        #expect(decoded.verdict(for: "x.a.com") == "a.com")
    }
}

extension SessionSet {
    /// The desired block of sessions with these rules.
    static func desiredBlock(of rules: [BlockRules]) -> DesiredBlock {
        let now = ClockReading(wall: Date(timeIntervalSince1970: 1_700_000_000), boot: BootTime(seconds: 100), bootID: "boot")
        return SessionSet(
            rules.enumerated().map { index, rules in
                Session(
                    id: "s\(index)", profile: "p\(index)", origin: .manual, strict: false, rules: rules,
                    duration: .seconds(600), now: now)
            }
        ).desiredBlock
    }
}

@Suite struct DesiredBlockAppsTests {
    @Test func mergesAppsByID() {
        let block = DesiredBlock(apps: [
            BlockedApp(id: "steam", name: "Steam", executables: ["/usr/games/steam"], running: .freeze),
            BlockedApp(id: "discord", executables: ["/usr/bin/discord"]),
            BlockedApp(
                id: "steam", name: "Steam", executables: ["/usr/lib/steam/steam", "/usr/games/steam"], strict: true,
                running: .freeze),
        ])
        #expect(block.apps.map(\.id) == ["discord", "steam"])
        #expect(block.apps[1].executables == ["/usr/games/steam", "/usr/lib/steam/steam"])
        #expect(block.apps[1].strict)
        #expect(block.apps[1].running == .freeze)
        #expect(!block.isEmpty)
        #expect(!block.blocksNetwork)
        #expect(DesiredBlock(domains: ["a.com"]).blocksNetwork)
    }

    @Test func terminateWinsOverFreeze() {
        let merged = BlockedApp(id: "a", executables: ["/a"], running: .freeze)
            .merged(with: BlockedApp(id: "a", executables: ["/b"], running: .terminate))
        #expect(merged.running == .terminate)
        #expect(merged.executables == ["/a", "/b"])
    }

    @Test func appsRoundTripAndOldStateLoads() throws {
        let block = DesiredBlock(domains: ["a.com"], apps: [BlockedApp(id: "steam", executables: ["/usr/games/steam"], strict: true)])
        let data = try JSONEncoder().encode(block)
        #expect(try JSONDecoder().decode(DesiredBlock.self, from: data) == block)
        let old = try JSONDecoder().decode(DesiredBlock.self, from: Data(#"{"domains":["a.com"]}"#.utf8))
        #expect(old.apps.isEmpty)
        let minimal = try JSONDecoder().decode(
            DesiredBlock.self,
            from: Data(#"{"domains":[],"apps":[{"id":"x","executables":["/x"]}]}"#.utf8))
        #expect(minimal.apps == [BlockedApp(id: "x", name: "x", executables: ["/x"], strict: false, running: .terminate)])
    }
}
