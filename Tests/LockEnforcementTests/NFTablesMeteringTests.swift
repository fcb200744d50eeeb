import Foundation
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// The firewall meter's byte counters: a named counter per metered name, a map from each of its
/// addresses, consulted in both directions before any verdict.
@Suite struct NFTablesMeteringTests {
    private func net(_ text: String) -> IPNetwork { try! IPNetwork(parsing: text) }

    private let resolved: [String: [String]] = [
        "video.example": ["203.0.113.20", "203.0.113.99", "2001:db8::20"],
        "cdn.video.example": ["203.0.113.99", "203.0.113.21"],
        "blocked.example": ["203.0.113.5"],
        "sinkholed.example": ["0.0.0.0", "127.0.0.1"],
    ]

    private func lookUp(_ name: String) -> [IPNetwork] { (resolved[name] ?? []).map(net) }

    private let doh = DoHList(names: [], addresses: [])
    private let redirect = DNSRedirect(port: 5353, mark: 0x5e, metering: true)

    @Test func eachAddressCountsForOneNameAndSharedOnesForTheShortest() throws {
        let ruleset = NFTablesRuleset(
            desired: .empty, resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: redirect,
            metered: ["cdn.video.example", "video.example", "sinkholed.example", "unresolved.example"])
        #expect(ruleset.mode == .meter)
        let metering = try #require(ruleset.metering)
        #expect(
            metering.attribution == [
                net("203.0.113.20"): "video.example", net("203.0.113.99"): "video.example", net("2001:db8::20"): "video.example",
                net("203.0.113.21"): "cdn.video.example",
            ], "a shared address counts for the shortest name; sinkhole answers and unresolved names get nothing")
        #expect(Set(ruleset.meterCounters.values) == ["video.example", "cdn.video.example"])
        let script = ruleset.script
        #expect(script.contains("flush map inet simplylock meters4"))
        #expect(script.contains("203.0.113.99 : \"\(NFTablesRuleset.meterCounterName(for: "video.example"))\""))
        #expect(script.contains("counter name ip saddr map @meters4"), "replies are counted too")
        #expect(script.contains("chain input {\n\t\tjump usage\n\t}"))
        #expect(
            script.contains(
                "chain output {\n\t\tmeta l4proto udp th dport 53 socket mark 0x5e counter name exemptudp\n\t\tjump usage\n\t\tjump enforce\n\t}"
            ),
            "counted before any verdict")
        #expect(script.contains("chain forward {\n\t\tjump usage\n\t\tjump enforce\n\t}"))
        #expect(!script.contains("add element inet simplylock block4"), "metering refuses nothing")
    }

    @Test func blockedAddressesAreNotMeteredAndNoMeterWithoutNamesOrTable() {
        let blocking = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [],
            counting: .init(), metered: ["blocked.example", "video.example"])
        #expect(blocking.metering?.names == ["video.example"], "refused packets are not use")
        #expect(blocking.script.contains("jump usage"))
        let unmetered = NFTablesRuleset(desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [])
        #expect(unmetered.metering == nil)
        #expect(!unmetered.script.contains("meter"))
        let off = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [], metered: ["video.example"])
        #expect(off.mode == .off, "no block and no metering redirect: no table, no counters")
        #expect(off.metering == nil)
    }

    @Test func counterTotalsAreReadBackWithBytes() {
        let output = """
            table inet simplylock {
            \tcounter m_0123456789abcdef {
            \t\tcomment "video.example"
            \t\tpackets 12 bytes 180000
            \t}
            }
            """
        let totals = NFTablesRuleset.parseCounterTotals(output)
        #expect(totals["m_0123456789abcdef"]?.packets == 12)
        #expect(totals["m_0123456789abcdef"]?.bytes == 180_000)
        #expect(NFTablesRuleset.meterCounterName(for: "video.example").hasPrefix("m_"))
        #expect(NFTablesRuleset.meterCounterName(for: "video.example").count == 18)
    }

    @Test(
        "in the kernel, bytes to and from a metered name's address count in its counter, replies included, across in-place commits",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelCountsBytesBothWays() throws {
        let ruleset = NFTablesRuleset(
            mode: .meter, metering: .init(attribution: [net("198.51.100.5"): "video.example", net("198.51.100.6"): "other.example"]))
        let blocking = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [],
            counting: .init(), metered: ["video.example"])
        for script in [ruleset.script, ruleset.replacementScript, blocking.script] {
            let check = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
            #expect(check.status == 0, "\(check)\n\(script)")
        }
        // A peer in a namespace of its own answers 10 000 bytes with 200 000: only the replies
        // (input hook) make the total pass 200 000.
        let shell = """
            ip link set lo up; unshare -n sleep 30 & peer=$!; sleep 0.3; \
            ip link add v0 type veth peer name v1 netns $peer && ip addr add 198.51.100.1/24 dev v0 && ip link set v0 up \
            && nsenter -t $peer -n sh -c 'ip link set lo up && ip addr add 198.51.100.5/24 dev v1 && ip link set v1 up' \
            && nft -f "$1" && nft -f "$1" \
            && { nsenter -t $peer -n python3 -c 'import socket
            s = socket.create_server(("198.51.100.5", 8080)); c, _ = s.accept(); n = 0
            while n < 10000: n += len(c.recv(65536))
            c.sendall(b"x" * 200000); c.close()' & } && sleep 0.5 \
            && python3 -c 'import socket
            c = socket.create_connection(("198.51.100.5", 8080), timeout=5); c.sendall(b"y" * 10000); n = 0
            while True:
                d = c.recv(65536)
                if not d: break
                n += len(d)
            assert n == 200000, n' \
            && nft list counters table inet simplylock; status=$?; kill $peer; exit $status
            """
        let result = try KernelCheck.run(script: ruleset.script, ["sh", "-c", shell, "sh", "{}"])
        #expect(result.status == 0, "\(result)")
        let totals = NFTablesRuleset.parseCounterTotals(result.stdout)
        let video = try #require(totals[NFTablesRuleset.meterCounterName(for: "video.example")], "\(result.stdout)")
        #expect(video.bytes >= 210_000, "both directions: \(video)")
        #expect(video.bytes < 300_000, "each packet counted once: \(video)")
        #expect(totals[NFTablesRuleset.meterCounterName(for: "other.example")]?.bytes == 0)
    }
}
