import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// TCP to blocked names' addresses handed over to the connection check (sites sharing an address
/// with a blocked name keep working): which sets, which rules in which order, which mark bits.
extension NFTablesRulesetTests {
    /// blocked.example's addresses, one of which a profile also lists; a network listed too.
    private var sharedBlock: DesiredBlock {
        DesiredBlock(domains: ["blocked.example", "www.blocked.example"], addresses: [net("192.0.2.0/24"), net("203.0.113.6")])
    }

    private func handedOver(_ desired: DesiredBlock? = nil, counting: NFTablesRuleset.AttemptCounting? = .init(logGroup: 7))
        -> NFTablesRuleset
    {
        NFTablesRuleset(
            desired: desired ?? sharedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: counting, connectionHandoff: true)
    }

    /// The rules of one chain of the table's contents (the second `table` block of the script).
    private func chain(_ name: String, in script: String) -> [String] {
        let contents = script.components(separatedBy: "\ntable inet simplylock {\n").last ?? ""
        return contents.split(separator: "\n").drop { $0 != "\tchain \(name) {" }.dropFirst().prefix { $0 != "\t}" }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func onlyNamesAddressesAreHandedOverAndListedOnesStayRefused() {
        let ruleset = handedOver()
        #expect(ruleset.connectionHandoff)
        let script = ruleset.script
        // 203.0.113.6 is blocked.example's but a profile lists it: with the listed ones, refused outright.
        #expect(script.contains("add element inet simplylock block4 {\n\t203.0.113.5, 203.0.113.7\n}"), "\(script)")
        #expect(script.contains("add element inet simplylock shared4 {\n\t203.0.113.6\n}"), "\(script)")
        #expect(script.contains("add element inet simplylock blocknet4 {\n\t192.0.2.0/24\n}"))
        #expect(script.contains("add element inet simplylock block6 {\n\t2001:db8::5\n}"))
        let enforce = chain("enforce", in: script)
        let jumps = enforce.filter { $0.contains("jump handoff") }
        #expect(
            jumps == [
                "ip daddr @block4 meta l4proto tcp ct direction original meta mark & 0x400000 == 0x400000 jump handoff",
                "ip daddr @named4 meta l4proto tcp ct direction original meta mark & 0x400000 == 0x400000 jump handoff",
                "ip6 daddr @block6 meta l4proto tcp ct direction original meta mark & 0x400000 == 0x400000 jump handoff",
                "ip6 daddr @named6 meta l4proto tcp ct direction original meta mark & 0x400000 == 0x400000 jump handoff",
            ])
        #expect(!script.contains("add element inet simplylock named4"), "every name here has its own counter")
        // After every counting rule and the DoH rejects, before every reject of a blocked set.
        func index(_ predicate: (String) -> Bool) -> Int { enforce.firstIndex(where: predicate) ?? -1 }
        let firstJump = index { $0.contains("jump handoff") }
        let lastCount = enforce.lastIndex { $0.contains("counter name") } ?? -1
        let lastDoH = enforce.lastIndex { $0.contains("@doh") } ?? -1
        let firstReject = index { $0.contains("@block") && $0.contains("reject") }
        #expect(lastCount < firstJump && lastDoH < firstJump && firstJump < firstReject, "\(enforce)")
        #expect(!enforce.contains { $0.contains("@shared") && $0.contains("jump") })
        #expect(!enforce.contains { $0.contains("@blocknet") && $0.contains("jump") })
        // The handoff chain: the check's verdict, then the window, then "needs a name".
        #expect(
            chain("handoff", in: script) == [
                "ct mark & 0x300000 == 0x100000 accept",
                "ct mark & 0x300000 != 0 reject with tcp reset",
                "ct original packets > 24 reject with tcp reset",
                "tcp flags & (syn | ack) == syn tcp option fastopen exists reject with tcp reset",
                "tcp flags & (syn | ack) == syn tcp option 254 exists reject with tcp reset",
                "meta mark set meta mark | 0x800000 accept",
            ])
        #expect(script.contains("\tchain handoff {\n\t}\n"), "declared, so that an update finds it")
    }

    /// Handed over, a SYN to a blocked name's address is counted only when the check's tables
    /// are not in force (the firewall then resets it itself); the check reports its refusals.
    @Test func handedOverSynsAreNotCountedAsAttempts() {
        let enforce = chain("enforce", in: handedOver().script)
        let tcpCounts = enforce.filter { line in ["@block4", "@block6", "@named4", "@named6"].contains { line.contains("\($0) tcp flags") }
        }
        #expect(tcpCounts.count == 4)
        #expect(tcpCounts.allSatisfy { $0.contains("meta mark & 0x400000 == 0 counter name") }, "\(tcpCounts)")
        let others = enforce.filter { $0.contains("counter name") && !tcpCounts.contains($0) }
        #expect(!others.isEmpty && others.allSatisfy { !$0.contains("meta mark") })
    }

    @Test func noHandoffUnlessAskedWithCountingInBlocklists() {
        let plain = NFTablesRuleset(desired: sharedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: .init())
        #expect(!plain.connectionHandoff)
        #expect(!plain.script.contains("handoff"))
        #expect(!plain.script.contains("meta mark"))
        #expect(!handedOver(counting: nil).connectionHandoff, "without counting, block4 holds listed addresses too")
        let allowlist = handedOver(DesiredBlock(domains: ["blocked.example"], allowOnly: AllowList(domains: ["allowed.example"])))
        #expect(!allowlist.connectionHandoff)
        #expect(!allowlist.script.contains("handoff"))
        #expect(!NFTablesRuleset(table: "simplylock", mode: .off, connectionHandoff: true).connectionHandoff)
    }

    /// Names past the counter cap share one counter, but their addresses are names' addresses
    /// all the same: handed over from a set of their own, apart from the listed ones.
    @Test func namesPastTheCounterCapAreHandedOverToo() {
        let count = NFTablesRuleset.maxNamedCounters + 3
        let names = (0..<count).map { "n\(String(format: "%05d", $0)).example" }
        let address = { (name: String) -> [IPNetwork] in
            let index = 2 * Int(name.dropFirst().prefix(5))!
            return [try! IPNetwork(parsing: "10.1.\(index / 256).\(index % 256)")]
        }
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(domains: names, addresses: [net("10.9.0.1")]), resolved: address,
            doh: DoHList(names: [], addresses: []), nameservers: [], counting: .init(), connectionHandoff: true)
        let script = ruleset.script
        #expect(script.contains("add element inet simplylock named4 {\n\t10.1.16.0, 10.1.16.2, 10.1.16.4\n}"), "\(script.suffix(1500))")
        #expect(script.contains("add element inet simplylock shared4 {\n\t10.9.0.1\n}"))
        let enforce = chain("enforce", in: script)
        #expect(
            enforce.contains { $0.hasPrefix("ip daddr @named4 meta l4proto tcp ct direction original") && $0.hasSuffix("jump handoff") })
        #expect(enforce.contains("ip daddr @named4 tcp flags & (syn | ack) == syn meta mark & 0x400000 == 0 counter name a_shared"))
        #expect(enforce.contains("ip daddr @named4 meta l4proto tcp reject with tcp reset"))
        #expect(enforce.contains("ip6 daddr @named6 reject with icmpx admin-prohibited"))
        #expect(!enforce.contains { $0.contains("@shared4") && $0.contains("jump") })
        let plain = NFTablesRuleset(
            desired: DesiredBlock(domains: names), resolved: address, doh: DoHList(names: [], addresses: []), nameservers: [],
            counting: .init())
        #expect(!plain.script.contains("named4"), "no such set without the handoff")
    }

    /// The mark bits the main table tests and sets are the connection check's.
    @Test func theBitsAreTheConnectionChecks() {
        #expect(NFTablesRuleset.hex(ConnectionCheck.present) == "0x400000")
        #expect(NFTablesRuleset.hex(ConnectionCheck.needsName) == "0x800000")
        #expect(ConnectionCheck.presentPriority < 0 && ConnectionCheckTables.priority > 0)
    }

    @Test(
        "the kernel takes the handed-over table, as an update and as a replacement",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelTakesTheHandoff() throws {
        let ruleset = handedOver()
        for script in [ruleset.script, ruleset.replacementScript] {
            let check = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
            #expect(check.status == 0, "\(check)\n\(script)")
        }
        // From handed over back to not (the check's tables gone): an in-place update.
        let back = NFTablesRuleset(desired: sharedBlock, resolved: lookUp, doh: doh, nameservers: [], counting: .init(logGroup: 7))
        let shell = "nft -f \"$1\" && nft -f \"$2\" && nft list table inet simplylock"
        let second = FileManager.default.temporaryDirectory.appendingPathComponent("ruleset-\(UUID().uuidString).nft")
        try back.script.write(to: second, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: second) }
        let result = try KernelCheck.run(script: ruleset.script, ["sh", "-c", shell, "sh", "{}", second.path])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("jump handoff"), "\(result.stdout)")
    }
}
