import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// Counting blocked connection attempts: each blocked address for the name it was resolved from.
extension NFTablesRulesetTests {
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
