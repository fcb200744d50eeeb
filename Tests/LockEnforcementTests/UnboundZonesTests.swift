import Foundation
import LockCore
import Testing

@testable import LockEnforcement

@Suite("Unbound zones, include file and dnsmasq servers-file from the LAN part of the desired state")
struct UnboundZonesTests {
    static let kids = DeviceGroup(
        name: "kids", networks: [try! IPNetwork(parsing: "192.168.1.0/26"), try! IPNetwork(parsing: "2001:db8::/64")])
    static let office = DeviceGroup(name: "office", networks: [try! IPNetwork(parsing: "192.168.1.100")])
    static let reddit = BlockRules(block: DomainSet(["reddit.com"]), allow: DomainSet(["old.reddit.com"]))
    static let allReddit = BlockRules(block: DomainSet(["reddit.com"]))
    static let video = BlockRules(block: DomainSet(["youtube.com", "m.youtube.com"]))

    @Test func blockedNamesBecomeZonesAndExceptionsTransparentOnesUnlessAnotherSessionBlocksThem() {
        let lan = LANBlock(groups: [Self.kids, Self.office], targets: ["kids": [Self.reddit], "lan": [Self.video]])
        let zones = UnboundZones(lan, answerNull: false)
        #expect(zones.global == ["youtube.com": "always_nxdomain", "m.youtube.com": "always_nxdomain"])
        #expect(zones.views["simplylock-kids"] == ["reddit.com": "always_nxdomain", "old.reddit.com": "transparent"])
        #expect(zones.views["simplylock-office"] == [:])
        #expect(zones.count == 4)
        // A second session without the exception wins over it.
        let both = UnboundZones(LANBlock(groups: [Self.kids], targets: ["kids": [Self.reddit, Self.allReddit]]), answerNull: true)
        #expect(both.views["simplylock-kids"] == ["reddit.com": "always_null"])
    }

    @Test func anAllowlistBlocksTheRootAndLetsItsNamesThrough() {
        let allow = BlockRules(block: DomainSet(["wikipedia.org"]), mode: .allowlist)
        let zones = UnboundZones(LANBlock(targets: ["lan": [allow, Self.allReddit]]), answerNull: false)
        #expect(zones.global == [".": "always_nxdomain", "wikipedia.org": "transparent", "reddit.com": "always_nxdomain"])
    }

    @Test func changesRemoveWhatIsGoneAndAddWhatIsNewOrRetyped() {
        let before = UnboundZones(
            global: ["a.test": "always_nxdomain", "b.test": "always_nxdomain"],
            views: ["simplylock-kids": ["c.test": "always_nxdomain"]])
        let after = UnboundZones(
            global: ["b.test": "transparent", "d.test": "always_nxdomain"],
            views: ["simplylock-kids": [:], "simplylock-office": ["e.test": "always_nxdomain"]])
        let steps = before.changes(to: after)
        #expect(steps.count == 3)
        #expect(steps[0].view == nil && steps[0].remove == ["a.test"])
        #expect(steps[0].add.map(\.0) == ["b.test", "d.test"] && steps[0].add.map(\.1) == ["transparent", "always_nxdomain"])
        #expect(steps[1].view == "simplylock-kids" && steps[1].remove == ["c.test"] && steps[1].add.isEmpty)
        #expect(steps[2].view == "simplylock-office" && steps[2].add.map(\.0) == ["e.test"])
        #expect(before.changeCount(to: after) == 5)
        #expect(before.viewChangeCount(to: after) == 2)
        #expect(after.changes(to: after).isEmpty)
    }

    @Test func theIncludeFileDeclaresEveryGroupAsAViewOfItsClients() {
        let zones = UnboundZones(
            LANBlock(groups: [Self.kids, Self.office], targets: ["kids": [Self.reddit], "lan": [Self.video]]),
            answerNull: false)
        let text = UnboundIncludeFile.render(groups: [Self.kids, Self.office], zones: zones)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("access-control-view: 192.168.1.0/26 simplylock-kids"))
        #expect(lines.contains("access-control-view: 2001:db8::/64 simplylock-kids"))
        #expect(
            lines.contains("access-control-view: 192.168.1.100/32 simplylock-office")
                || lines.contains("access-control-view: 192.168.1.100 simplylock-office"))
        #expect(lines.contains("local-zone: \"youtube.com.\" always_nxdomain"))
        #expect(lines.filter { $0 == "view:" }.count == 3)
        #expect(lines.filter { $0 == "view-first: yes" }.count == 3)
        #expect(lines.contains("name: \"simplylock\""))
        // The kids' zones follow their view's header, not the server's.
        let kidsView = try! #require(lines.firstIndex(of: "name: \"simplylock-kids\""))
        let oldReddit = try! #require(lines.firstIndex(of: "local-zone: \"old.reddit.com.\" transparent"))
        #expect(oldReddit > kidsView)
        #expect(UnboundIncludeFile.render(groups: [], zones: .empty).contains("server:"))
    }

    @Test func dnsmasqGetsServerLinesForTheWholeLANOnly() {
        let lan = LANBlock(groups: [Self.kids], targets: ["kids": [Self.video], "lan": [Self.reddit]])
        let (text, count) = DnsmasqEnforcer.render(lan)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["server=/old.reddit.com/#", "server=/reddit.com/"])
        #expect(count == 2)
        #expect(DnsmasqEnforcer.render(.empty).names == 0)
    }

    @Test func blockedAttemptsAreCountedPerGroupFromUnboundsLog() {
        let zones = UnboundZones(
            global: ["video.test": "always_nxdomain"],
            views: ["simplylock-kids": ["blocked.test": "always_nxdomain"], "simplylock-office": [:]])
        let text = """
            [1700000000] unbound[9:0] info: blocked.test. always_nxdomain 192.168.1.10@40000 m.blocked.test. A IN
            [1700000000] unbound[9:0] info: blocked.test. always_nxdomain 192.168.1.10@40001 blocked.test. AAAA IN
            [1700000001] unbound[9:0] info: video.test. always_nxdomain 192.168.1.100@40002 www.video.test. A IN
            [1700000001] unbound[9:0] info: video.test. always_nxdomain 10.0.0.9@40003 video.test. A IN
            [1700000002] unbound[9:0] info: localhost. static 192.168.1.10@40004 localhost. A IN
            [1700000002] unbound[9:0] info: mine.test. always_nxdomain 10.0.0.9@40005 mine.test. A IN
            [1700000002] unbound[9:0] info: old.blocked.test. transparent 192.168.1.10@40006 old.blocked.test. A IN
            """
        var log = UnboundActionLog()
        log.read(Substring(text), bytes: text.utf8.count, zones: zones, groups: [Self.kids, Self.office])
        #expect(log.attempts == ["kids": 2, "office": 1, "lan": 1])
        #expect(log.offset == text.utf8.count)
        #expect(UnboundActionLog.blocked(in: "x. always_null 2001:db8::7@53 x. A IN")?.client == "2001:db8::7")
        #expect(UnboundActionLog.blocked(in: "garbage always_nxdomain") == nil)
    }

    @Test func queriesAreCountedPerGroupForTheGroupMeter() {
        let text = """
            [1700000000] unbound[9:0] info: 192.168.1.10 m.example.test. A IN
            [1700000000] unbound[9:0] info: 192.168.1.11 example.test. AAAA IN
            [1700000001] unbound[9:0] info: 192.168.1.100 www.example.test. HTTPS IN
            [1700000001] unbound[9:0] info: 10.0.0.9 example.test. A IN
            [1700000002] unbound[9:0] info: blocked.test. always_nxdomain 192.168.1.10@40000 m.blocked.test. A IN
            [1700000002] unbound[9:0] info: start of service (unbound 1.17.1).
            """
        var log = UnboundActionLog()
        log.read(Substring(text), bytes: text.utf8.count, zones: .empty, groups: [Self.kids, Self.office])
        #expect(log.takeQueries() == ["kids": 2, "office": 1], "a client in no group is no group's time; a local action is no query line")
        #expect(log.takeQueries().isEmpty, "taken once")
        #expect(UnboundActionLog.query(in: "[1] unbound[9:0] info: 2001:db8::7 x.test. A IN") == "2001:db8::7")
        #expect(UnboundActionLog.query(in: "[1] unbound[9:0] info: start of service (unbound 1.17.1).") == nil)
    }
}
