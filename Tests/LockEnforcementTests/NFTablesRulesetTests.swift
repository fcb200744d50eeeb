import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// The nftables ruleset rendered for a desired block: its table, sets and rules, and (where the
/// kernel is at hand) the kernel's reading of it. The DNS redirect and the counting of blocked
/// connections are extensions in files of their own; the fixtures here serve all three.
@Suite struct NFTablesRulesetTests {
    func net(_ text: String) -> IPNetwork { try! IPNetwork(parsing: text) }

    let resolved: [String: [String]] = [
        "blocked.example": ["203.0.113.5", "203.0.113.6", "2001:db8::5"],
        "www.blocked.example": ["203.0.113.7"],
        "sinkholed.example": ["0.0.0.0", "::", "127.0.0.1", "::1"],
        "dns.google": ["8.8.8.8", "2001:4860:4860::8888"],
        "allowed.example": ["198.51.100.10"],
    ]

    func lookUp(_ name: String) -> [IPNetwork] { (resolved[name] ?? []).map(net) }

    let doh = DoHList(names: ["dns.google"], addresses: [try! IPNetwork(parsing: "1.1.1.1")])

    @Test func nothingBlockedDeletesTheTableAndNothingElse() {
        let ruleset = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")])
        #expect(ruleset.mode == .off)
        #expect(ruleset.script == "table inet simplylock\ndelete table inet simplylock\n")
        #expect(ruleset.elementCount == 0)
        #expect(NFTablesRuleset.namesToResolve(for: .empty, doh: doh).isEmpty)
    }

    @Test func blocklistScript() {
        let desired = DesiredBlock(
            domains: ["blocked.example", "www.blocked.example"],
            addresses: [net("192.0.2.0/24"), net("2001:db8:1::/48")])
        let ruleset = NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")])
        #expect(ruleset.mode == .blocklist)
        #expect(ruleset.elementCount == 1 + 3 + 1 + 2 + 1 + 1 + 1)  // resolvers4, block4, blocknet4, doh4, block6, blocknet6, doh6
        #expect(
            ruleset.script == """
                table inet simplylock {
                \tcomment "SimplyLock focus block; owned by simplylockd, rewritten as a whole"
                \tset resolvers4 {
                \t\ttype ipv4_addr
                \t\tflags interval
                \t}
                \tset block4 {
                \t\ttype ipv4_addr
                \t}
                \tset shared4 {
                \t\ttype ipv4_addr
                \t}
                \tset blocknet4 {
                \t\ttype ipv4_addr
                \t\tflags interval
                \t}
                \tset doh4 {
                \t\ttype ipv4_addr
                \t\tflags interval
                \t}
                \tset allow4 {
                \t\ttype ipv4_addr
                \t\tflags interval
                \t}
                \tset resolvers6 {
                \t\ttype ipv6_addr
                \t\tflags interval
                \t}
                \tset block6 {
                \t\ttype ipv6_addr
                \t}
                \tset shared6 {
                \t\ttype ipv6_addr
                \t}
                \tset blocknet6 {
                \t\ttype ipv6_addr
                \t\tflags interval
                \t}
                \tset doh6 {
                \t\ttype ipv6_addr
                \t\tflags interval
                \t}
                \tset allow6 {
                \t\ttype ipv6_addr
                \t\tflags interval
                \t}
                \tchain output {
                \t\ttype filter hook output priority filter; policy accept;
                \t}
                \tchain forward {
                \t\ttype filter hook forward priority filter; policy accept;
                \t}
                \tchain enforce {
                \t}
                }
                flush table inet simplylock
                flush set inet simplylock resolvers4
                flush set inet simplylock block4
                flush set inet simplylock shared4
                flush set inet simplylock blocknet4
                flush set inet simplylock doh4
                flush set inet simplylock allow4
                flush set inet simplylock resolvers6
                flush set inet simplylock block6
                flush set inet simplylock shared6
                flush set inet simplylock blocknet6
                flush set inet simplylock doh6
                flush set inet simplylock allow6
                add element inet simplylock resolvers4 {
                \t192.0.2.53
                }
                add element inet simplylock block4 {
                \t203.0.113.5, 203.0.113.6, 203.0.113.7
                }
                add element inet simplylock blocknet4 {
                \t192.0.2.0/24
                }
                add element inet simplylock doh4 {
                \t1.1.1.1, 8.8.8.8
                }
                add element inet simplylock block6 {
                \t2001:db8::5
                }
                add element inet simplylock blocknet6 {
                \t2001:db8:1::/48
                }
                add element inet simplylock doh6 {
                \t2001:4860:4860::8888
                }
                table inet simplylock {
                \tchain output {
                \t\tjump enforce
                \t}
                \tchain forward {
                \t\tjump enforce
                \t}
                \tchain enforce {
                \t\toifname "lo" accept
                \t\tip daddr @resolvers4 meta l4proto { tcp, udp } th dport { 53, 853 } accept
                \t\tip6 daddr @resolvers6 meta l4proto { tcp, udp } th dport { 53, 853 } accept
                \t\tip daddr @doh4 meta l4proto tcp th dport { 443, 853 } reject with tcp reset
                \t\tip daddr @doh4 meta l4proto udp th dport { 443, 853 } reject with icmpx admin-prohibited
                \t\tip6 daddr @doh6 meta l4proto tcp th dport { 443, 853 } reject with tcp reset
                \t\tip6 daddr @doh6 meta l4proto udp th dport { 443, 853 } reject with icmpx admin-prohibited
                \t\tip daddr @block4 meta l4proto tcp reject with tcp reset
                \t\tip daddr @block4 reject with icmpx admin-prohibited
                \t\tip daddr @shared4 meta l4proto tcp reject with tcp reset
                \t\tip daddr @shared4 reject with icmpx admin-prohibited
                \t\tip daddr @blocknet4 meta l4proto tcp reject with tcp reset
                \t\tip daddr @blocknet4 reject with icmpx admin-prohibited
                \t\tip6 daddr @block6 meta l4proto tcp reject with tcp reset
                \t\tip6 daddr @block6 reject with icmpx admin-prohibited
                \t\tip6 daddr @shared6 meta l4proto tcp reject with tcp reset
                \t\tip6 daddr @shared6 reject with icmpx admin-prohibited
                \t\tip6 daddr @blocknet6 meta l4proto tcp reject with tcp reset
                \t\tip6 daddr @blocknet6 reject with icmpx admin-prohibited
                \t}
                }

                """)
    }

    @Test func replacementScriptRecreatesTheSameContent() {
        let desired = DesiredBlock(domains: ["blocked.example"], addresses: [net("192.0.2.0/24")])
        let ruleset = NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")])
        let replacement = ruleset.replacementScript
        #expect(replacement.hasPrefix("table inet simplylock\ndelete table inet simplylock\ntable inet simplylock {\n"))
        #expect(!replacement.contains("flush"))
        // Same declarations and contents, only the way to get rid of the old state differs.
        let inPlace = ruleset.script.split(separator: "\n").filter { !$0.hasPrefix("flush") }
        #expect(Array(replacement.split(separator: "\n").dropFirst(2)) == inPlace)
    }

    @Test func singlesGoToTheHashSetAndRangesToTheIntervalSet() {
        let desired = DesiredBlock(addresses: [net("10.0.0.0/28"), net("10.0.1.0/27"), net("10.0.2.1"), net("2001:db8::/127")])
        let ruleset = NFTablesRuleset(desired: desired, resolved: lookUp, doh: .none, nameservers: [])
        #expect(ruleset.block.split(.ipv4).addresses.count == 16 + 1)
        #expect(ruleset.block.split(.ipv4).ranges == ["10.0.1.0/27"])
        #expect(ruleset.block.split(.ipv6).addresses == ["2001:db8::", "2001:db8::1"])
        #expect(ruleset.elementCount == 17 + 1 + 2)
    }

    @Test func neverNamesAnotherTable() {
        let desired = DesiredBlock(domains: ["blocked.example"], allowOnly: AllowList(domains: ["allowed.example"]))
        for ruleset in [
            NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: []),
            NFTablesRuleset(table: "simplylock-test", desired: .empty, resolved: lookUp, doh: doh, nameservers: []),
        ] {
            for script in [ruleset.script, ruleset.replacementScript] {
                let statements = script.split(separator: "\n").filter {
                    $0.hasPrefix("table") || $0.hasPrefix("delete") || $0.hasPrefix("flush") || $0.hasPrefix("add")
                }
                #expect(statements.allSatisfy { $0.contains("inet \(ruleset.table) ") || $0.hasSuffix("inet \(ruleset.table)") })
                #expect(!script.contains("flush ruleset"))
            }
        }
    }

    @Test func resolvedSinkholeAndLoopbackAnswersAreNotBlockedButExplicitOnesAre() {
        let desired = DesiredBlock(domains: ["sinkholed.example"], addresses: [net("127.0.0.0/8")])
        let ruleset = NFTablesRuleset(desired: desired, resolved: lookUp, doh: .none, nameservers: [])
        #expect(ruleset.block.elements(.ipv4) == ["127.0.0.0/8"])
        #expect(ruleset.block.elements(.ipv6).isEmpty)
    }

    @Test func dohIsBlockedOnlyWhileSomethingIsBlockedAndOnlyOnEncryptedDNSPorts() {
        let active = NFTablesRuleset(
            desired: DesiredBlock(addresses: [net("192.0.2.1")]), resolved: lookUp,
            doh: doh, nameservers: [])
        #expect(active.doh.elements(.ipv4) == ["1.1.1.1", "8.8.8.8"])
        let dohRules = active.script.split(separator: "\n").filter { $0.contains("@doh") }
        #expect(dohRules.count == 4)
        #expect(dohRules.allSatisfy { $0.contains("th dport { 443, 853 }") })
        #expect(!active.script.contains("dport 53 reject"))
        #expect(NFTablesRuleset.namesToResolve(for: DesiredBlock(addresses: [net("192.0.2.1")]), doh: doh) == ["dns.google"])
    }

    @Test func allowlistMode() {
        let desired = DesiredBlock(allowOnly: AllowList(domains: ["allowed.example"], addresses: [net("2001:db8::/32")]))
        let ruleset = NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")])
        #expect(ruleset.mode == .allowlist)
        #expect(ruleset.allow.elements(.ipv4) == ["198.51.100.10"])
        #expect(ruleset.allow.elements(.ipv6) == ["2001:db8::/32"])
        let script = ruleset.script
        #expect(script.contains("add element inet simplylock allow4 {\n\t198.51.100.10\n}"))
        let enforce = script.split(separator: "\n").drop { !$0.contains("jump enforce") }
            .drop { !$0.contains("chain enforce") }.map(String.init)
        func line(_ text: String) -> Int? { enforce.firstIndex { $0.contains(text) } }
        // Order matters: loopback and DNS first, blocks (DoH included) before allowances,
        // allowances before the final reject.
        let order = [
            "oifname \"lo\" accept", "@resolvers4", "@doh4", "@block4", "ct direction reply accept",
            "udp sport 68 udp dport 67 accept", "udp dport 123 accept", "nd-neighbor-solicit",
            "ip daddr @allow4 accept", "ip6 daddr @allow6 accept",
            "\t\tmeta l4proto tcp reject with tcp reset", "\t\treject with icmpx admin-prohibited",
        ]
        let positions = order.map(line)
        #expect(positions.allSatisfy { $0 != nil }, "\(zip(order, positions).filter { $0.1 == nil })")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(NFTablesRuleset.namesToResolve(for: desired, doh: doh) == ["allowed.example", "dns.google"])
    }

    @Test func blocklistHasNoCatchAllReject() {
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp,
            doh: .none, nameservers: [])
        #expect(!ruleset.script.contains("\t\treject with icmpx admin-prohibited\n"))
        #expect(!ruleset.script.contains("@allow"))
        #expect(!ruleset.script.contains("add element inet simplylock allow"))
    }

    @Test func namesAreCanonicalAndUnique() {
        let desired = DesiredBlock(domains: ["Blocked.Example.", "blocked.example", "www.blocked.example"])
        #expect(NFTablesRuleset.namesToResolve(for: desired, doh: .none) == ["blocked.example", "www.blocked.example"])
    }

    @Test func largeRulesetsRenderOneElementPerItem() {
        let addresses = (0..<10_000).map { try! IPNetwork(family: .ipv4, address: UInt128(0x0A00_0000 + 2 * $0)) }
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(addresses: addresses), resolved: { _ in [] },
            doh: .none, nameservers: [])
        #expect(ruleset.block.count == 10_000)
        let elements = ruleset.script.split(separator: "\n").filter { $0.hasPrefix("\t10.") }
        #expect(elements.map { $0.split(separator: ",").count }.reduce(0, +) == 10_000)
    }
}
