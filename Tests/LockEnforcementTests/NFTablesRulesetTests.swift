import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// What checking rulesets against the kernel needs: root, nft and unshare.
enum KernelCheck {
    static func which(_ tool: String) -> String? {
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let missing: String? = {
        guard getuid() == 0 else { return "needs root for a private network namespace" }
        for tool in ["unshare", "nft", "ip", "python3"] where which(tool) == nil { return "\(tool) is not installed" }
        guard let probe = try? ProcessRunner.run(which("unshare")!, ["-n", which("nft")!, "list", "ruleset"]), probe.status == 0 else {
            return "nft cannot talk to the kernel in a private network namespace here"
        }
        return nil
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    /// Runs `arguments` in a private network namespace with `script` in a file as `{}`.
    static func run(script: String, _ arguments: [String]) throws -> CommandResult {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ruleset-\(UUID().uuidString).nft")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ProcessRunner.run(which("unshare")!, ["-n"] + arguments.map { $0 == "{}" ? file.path : $0 })
    }
}

@Suite struct NFTablesRulesetTests {
    private func net(_ text: String) -> IPNetwork { try! IPNetwork(parsing: text) }

    private let resolved: [String: [String]] = [
        "blocked.example": ["203.0.113.5", "203.0.113.6", "2001:db8::5"],
        "www.blocked.example": ["203.0.113.7"],
        "sinkholed.example": ["0.0.0.0", "::", "127.0.0.1", "::1"],
        "dns.google": ["8.8.8.8", "2001:4860:4860::8888"],
        "allowed.example": ["198.51.100.10"],
    ]

    private func lookUp(_ name: String) -> [IPNetwork] { (resolved[name] ?? []).map(net) }

    private let doh = DoHList(names: ["dns.google"], addresses: [try! IPNetwork(parsing: "1.1.1.1")])

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
                \t\tip daddr @doh4 meta l4proto tcp th dport { 443, 853 } reject with tcp reset
                \t\tip daddr @doh4 meta l4proto udp th dport { 443, 853 } reject with icmpx admin-prohibited
                \t\tip6 daddr @doh6 meta l4proto tcp th dport { 443, 853 } reject with tcp reset
                \t\tip6 daddr @doh6 meta l4proto udp th dport { 443, 853 } reject with icmpx admin-prohibited
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
            "oifname \"lo\" accept", "@resolvers4", "@block4", "@doh4", "ct direction reply accept",
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

    // MARK: - DNS redirect

    private let redirect = DNSRedirect(port: 10053, mark: 0x534C)

    @Test func dnsRedirectWhileBlocking() {
        let desired = DesiredBlock(domains: ["blocked.example"])
        let ruleset = NFTablesRuleset(
            desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
            dnsRedirect: redirect)
        #expect(ruleset.dnsRedirect == redirect)
        let script = ruleset.script
        #expect(
            script.contains(
                """
                \tchain enforce {
                \t}
                \tchain dnsredirect {
                \t\ttype nat hook output priority -100; policy accept;
                \t}
                }

                """))
        #expect(
            script.hasSuffix(
                """
                \tchain dnsredirect {
                \t\tsocket mark 0x534c return
                \t\tfib daddr type local return
                \t\tmeta l4proto { tcp, udp } th dport 53 redirect to :10053
                \t}
                }

                """))
        // DoT is refused before DNS to the resolvers is let through: the resolvers are reachable
        // on 53 only while the filter is in the path.
        let rules = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let dot = rules.firstIndex(of: "meta l4proto tcp th dport 853 reject with tcp reset")
        let resolvers = rules.firstIndex { $0.hasPrefix("ip daddr @resolvers4") }
        #expect(dot != nil && resolvers != nil && dot! < resolvers!)
        #expect(rules.contains("meta l4proto udp th dport 853 reject with icmpx admin-prohibited"))
        #expect(
            ruleset.elementCount
                == NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")]).elementCount)
    }

    @Test func noRedirectWithoutABlockOrWithoutTheFilter() {
        let off = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: redirect)
        #expect(off.dnsRedirect == nil)
        #expect(off.script == "table inet simplylock\ndelete table inet simplylock\n")
        let plain = NFTablesRuleset(desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [])
        #expect(!plain.script.contains("nat"))
        #expect(!plain.script.contains("redirect"))
        #expect(!plain.script.contains("dport 853 reject"))
        let unmarked = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [],
            dnsRedirect: DNSRedirect(port: 5353, mark: nil))
        #expect(!unmarked.script.contains("mark"))
        #expect(unmarked.script.contains("redirect to :5353"))
    }

    @Test func theSiteMeterKeepsTheRedirectAloneWhileNothingIsBlocked() {
        let metering = DNSRedirect(port: 10053, mark: 0x534C, metering: true)
        let ruleset = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")], dnsRedirect: metering)
        #expect(ruleset.mode == .meter)
        #expect(ruleset.dnsRedirect == metering)
        #expect(ruleset.elementCount == 1, "the resolvers only")
        let script = ruleset.script
        #expect(script.contains("redirect to :10053"))
        #expect(!script.contains("dport 853 reject"), "nothing is blocked: DNS over TLS is not refused either")
        #expect(!script.contains("add element inet simplylock doh"), "no DoH endpoint is refused")
        #expect(!script.contains("queue"), "no connection check")
        // While something is blocked the metering redirect is the block's.
        let blocking = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: metering)
        #expect(blocking.mode == .blocklist && blocking.script.contains("dport 853 reject"))
    }

    @Test(
        "the rendered scripts pass nft's check against the kernel",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelAcceptsTheScripts() throws {
        let blocklist = DesiredBlock(domains: ["blocked.example"], addresses: [net("192.0.2.0/24"), net("2001:db8:1::/48")])
        let allowlist = DesiredBlock(allowOnly: AllowList(domains: ["allowed.example"], addresses: [net("2001:db8::/32")]))
        for desired in [blocklist, allowlist] {
            for dnsRedirect in [redirect, DNSRedirect(port: 1053, mark: nil), nil] {
                let ruleset = NFTablesRuleset(
                    desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
                    dnsRedirect: dnsRedirect)
                for script in [ruleset.script, ruleset.replacementScript] {
                    let result = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
                    #expect(result.status == 0, "\(result)\n\(script)")
                }
            }
        }
        // Twice in a row, as the daemon commits: the in-place update of an existing table,
        // from a ruleset without the redirect to one with it and back.
        let meter = NFTablesRuleset(
            desired: .empty, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
            dnsRedirect: DNSRedirect(port: 10053, mark: 0x534C, metering: true))
        for script in [meter.script, meter.replacementScript] {
            let result = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
            #expect(result.status == 0, "\(result)\n\(script)")
        }
        let first = NFTablesRuleset(desired: blocklist, resolved: lookUp, doh: doh, nameservers: [])
        let second = NFTablesRuleset(desired: blocklist, resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: redirect)
        let result = try KernelCheck.run(
            script: first.script + second.script + first.script,
            [KernelCheck.which("nft")!, "-f", "{}"])
        #expect(result.status == 0, "\(result)")
    }

    @Test(
        "in the kernel, the redirect sends plain DNS to the filter, lets the filter's own queries out (not packets another table marks), and refuses DoT",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelRedirectsDNS() throws {
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: .none,
            nameservers: [net("192.0.2.53")], dnsRedirect: redirect)
        let result = try KernelCheck.run(
            script: ruleset.script,
            [
                KernelCheck.which("python3")!, KernelCheck.repository + "/Tests/Scripts/dns-redirect-check.py", "{}", "10053", "0x534c",
            ])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("not ok"), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok - ") }.count == 8, "\(result.stdout)")
    }

    // MARK: - Counting blocked connection attempts

    private var countedBlock: DesiredBlock {
        DesiredBlock(domains: ["blocked.example", "www.blocked.example"], addresses: [net("192.0.2.0/24"), net("198.51.100.7")])
    }

    @Test func eachBlockedAddressCountsForTheShortestNameItWasResolvedFrom() {
        let ruleset = NFTablesRuleset(desired: countedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: .init(logGroup: 7))
        #expect(
            ruleset.attribution == [
                net("203.0.113.5"): "blocked.example", net("203.0.113.6"): "blocked.example", net("2001:db8::5"): "blocked.example",
                net("203.0.113.7"): "www.blocked.example",
            ])
        let counters = ruleset.counters
        #expect(counters[NFTablesRuleset.counterName(for: "blocked.example")] == "blocked.example")
        #expect(counters[NFTablesRuleset.sharedCounter] == NFTablesRuleset.sharedName)
        #expect(counters.count == 3)
        let script = ruleset.script
        #expect(script.contains("flush map inet simplylock attempts4"))
        #expect(script.contains("203.0.113.5 : \"\(NFTablesRuleset.counterName(for: "blocked.example"))\""))
        // The address the profile lists shares the one counter: no counter or map entry of its own.
        #expect(script.contains("add element inet simplylock shared4 {\n\t198.51.100.7\n}"), "\(script)")
        #expect(!script.contains("198.51.100.7 :"))
        #expect(script.contains("@shared4 meta l4proto udp counter name a_shared"))
        #expect(script.contains("log prefix \"simplylock \" group 7"))
        // The counting rules come before the rejects, which never depend on them.
        let lines = script.split(separator: "\n")
        let firstCount = lines.firstIndex { $0.contains("counter name") }!
        let firstReject = lines.firstIndex { $0.contains("reject") && $0.contains("@block4") }!
        #expect(firstCount < firstReject)
        #expect(!lines.contains { $0.contains("reject") && $0.contains("counter") })
    }

    @Test func noCountingUnlessAskedAndNoneInAllowlists() {
        let plain = NFTablesRuleset(desired: countedBlock, resolved: lookUp, doh: doh, nameservers: [])
        #expect(!plain.script.contains("counter"))
        #expect(plain.attribution.isEmpty)
        let allowlist = NFTablesRuleset(
            desired: DesiredBlock(allowOnly: AllowList(domains: ["allowed.example"])), resolved: lookUp,
            doh: doh, nameservers: [], counting: .init())
        #expect(!allowlist.script.contains("counter"))
        let counting = NFTablesRuleset(desired: countedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: .init())
        #expect(!counting.script.contains("log "))
    }

    @Test func counterOutputIsReadBack() {
        let output = """
            table inet simplylock {
            \tcounter a_0123456789abcdef {
            \t\tcomment "blocked.example"
            \t\tpackets 3 bytes 180
            \t}
            \tcounter a_shared {
            \t\tpackets 0 bytes 0
            \t}
            }
            """
        #expect(NFTablesRuleset.parseCounters(output) == ["a_0123456789abcdef": 3, "a_shared": 0])
        #expect(NFTablesRuleset.counterName(for: "blocked.example").count == 18)
    }

    @Test(
        "in the kernel, refused connections count per name in named counters, across in-place commits",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelCountsAttempts() throws {
        let ruleset = NFTablesRuleset(desired: countedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: .init(logGroup: 7))
        for script in [ruleset.script, ruleset.replacementScript] {
            let check = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
            #expect(check.status == 0, "\(check)\n\(script)")
        }
        // Commit twice (the second an in-place update), connect to a blocked address out of a
        // veth (loopback traffic is never blocked), then read the counters.
        let shell = """
            ip link set lo up && ip link add v0 type veth peer name v1 && ip link set v0 up && ip link set v1 up \
            && ip addr add 203.0.113.100/24 dev v0 && ip route add 198.51.100.0/24 dev v0 \
            && nft -f "$1" && nft -f "$1" \
            && python3 -c 'import socket
            for address, times in (("203.0.113.5", 3), ("198.51.100.7", 2)):
                for _ in range(times):
                    try: socket.create_connection((address, 80), timeout=1)
                    except OSError: pass' \
            && nft list counters table inet simplylock
            """
        let result = try KernelCheck.run(script: ruleset.script, ["sh", "-c", shell, "sh", "{}"])
        #expect(result.status == 0, "\(result)")
        let counts = NFTablesRuleset.parseCounters(result.stdout)
        #expect(counts[NFTablesRuleset.counterName(for: "blocked.example")] == 3, "\(result.stdout)")
        #expect(counts[NFTablesRuleset.counterName(for: "www.blocked.example")] == 0)
        #expect(counts[NFTablesRuleset.sharedCounter] == 2, "the listed address counts in the shared counter")
    }

    @Test func namesPastTheCounterCapShareOneCounterAndStayBlocked() {
        let count = NFTablesRuleset.maxNamedCounters + 10
        let names = (0..<count).map { "n\(String(format: "%05d", $0)).example" }
        // Every other address, so that no two merge into a range.
        let address = { (name: String) -> [IPNetwork] in
            let index = 2 * Int(name.dropFirst().prefix(5))!
            return [try! IPNetwork(parsing: "10.1.\(index / 256).\(index % 256)")]
        }
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(domains: names), resolved: address, doh: DoHList(names: [], addresses: []), nameservers: [],
            counting: .init())
        #expect(ruleset.counters.count == NFTablesRuleset.maxNamedCounters + 1)
        #expect(ruleset.attribution.count == count, "every address keeps its name for attempts reported as they happen")
        let script = ruleset.script
        let mapped = script.split(separator: "\n").filter { $0.contains(" : \"a_") }.joined().components(separatedBy: " : ").count - 1
        #expect(mapped == NFTablesRuleset.maxNamedCounters)
        // The last names (past the cap, the longest or last in order) are in the shared set.
        #expect(script.contains("add element inet simplylock shared4 {\n\t10.1.16.0, 10.1.16.2"), "\(script.suffix(2000))")
        #expect(!script.contains("10.1.16.0 :"))
    }
}
