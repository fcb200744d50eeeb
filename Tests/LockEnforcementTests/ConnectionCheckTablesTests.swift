import CNFTables
import Testing

@testable import LockEnforcement

/// The queue tables' rules in order (what the kernel does with them is netns-web-test.sh's).
@Suite struct ConnectionCheckTablesTests {
    static func summary(_ rule: [ConnectionCheckTables.Expression]) -> String {
        rule.map { expression in
            switch expression {
            case .queue(let queue, let bypass): "queue \(queue)\(bypass ? " bypass" : "")"
            case .resetTCP: "reset"
            case .rejectICMP(let code): "icmp \(code)"
            case .accept: "accept"
            case .metaSet: "meta set"
            case .ctSet: "ct set"
            case .metaLoad(let key) where key == NFT_META_OIFNAME: "oifname"
            default: ""
            }
        }
        .filter { !$0.isEmpty }.joined(separator: " ")
    }

    static func rules(
        _ family: ConnectionCheckTables.Family, _ hook: ConnectionCheckTables.Hook, _ stage: ConnectionCheckTables.Chain.Stage
    )
        -> [[ConnectionCheckTables.Expression]]
    {
        ConnectionCheckTables.rules(ConnectionCheck(queue: 7), family: family, chain: .init(hook: hook, stage: stage))
    }

    /// The (mask, xor) pairs of a rule's 32-bit bitwise expressions, in order.
    static func bitwise(_ rule: [ConnectionCheckTables.Expression]) -> [(UInt32, UInt32)] {
        rule.compactMap { if case .and(let mask, let xor) = $0 { (mask, xor) } else { nil } }
    }

    static func compared(_ rule: [ConnectionCheckTables.Expression]) -> [[UInt8]] {
        rule.compactMap { if case .equal(let value) = $0 { value } else { nil } }
    }

    @Test func verdictMarksComeFirstThenTheResetThenTheExemptionsAndTheQueuesThenTheClearing() {
        let rules = Self.rules(.ipv4, .output, .check).map(Self.summary)
        #expect(
            rules == [
                "ct set meta set", "ct set meta set accept", "ct set meta set accept", "reset", "oifname accept", "icmp 13",
                "meta set accept", "meta set accept", "queue 7", "queue 7 bypass", "meta set",
            ])
    }

    /// A router's forwarded packets have no loopback to exempt; IPv6 refuses with its own code.
    @Test func forwardedIPv6() {
        let rules = Self.rules(.ipv6, .forward, .check).map(Self.summary)
        #expect(
            rules == [
                "ct set meta set", "ct set meta set accept", "ct set meta set accept", "reset", "icmp 1", "meta set accept",
                "meta set accept", "queue 7", "queue 7 bypass", "meta set",
            ])
    }

    /// The chain before the main table ORs the "present" bit into TCP packets' marks, other
    /// bits kept; this machine's loopback traffic is left alone (the main table passes it anyway).
    @Test func presentChainMarksTCPBeforeTheMainTable() {
        for hook in ConnectionCheckTables.Hook.allCases {
            let rules = Self.rules(.ipv4, hook, .present)
            #expect(rules.count == 1)
            #expect(Self.summary(rules[0]) == (hook == .output ? "oifname meta set" : "meta set"))
            let or = Self.bitwise(rules[0])
            #expect(or.count == 1 && or[0].0 == ~ConnectionCheck.present && or[0].1 == ConnectionCheck.present)
            #expect(Self.compared(rules[0]).first == [6])  // IPPROTO_TCP
            #expect(ConnectionCheckTables.Chain(hook: hook, stage: .present).priority < 0)
            #expect(ConnectionCheckTables.Chain(hook: hook, stage: .check).priority > 0)
            #expect(
                ConnectionCheckTables.Chain(hook: hook, stage: .present).name != ConnectionCheckTables.Chain(hook: hook, stage: .check).name
            )
        }
    }

    /// Handed-over packets go to the queue without bypass (a killed daemon drops them), before
    /// the rule that queues the rest with bypass; every way out clears the check's packet bits.
    @Test func handedOverPacketsAreQueuedWithoutBypassAndEveryBitIsCleared() {
        let rules = Self.rules(.ipv4, .output, .check)
        let handedOver = rules[8]
        #expect(Self.bitwise(handedOver).contains { $0.0 == ConnectionCheck.needsName && $0.1 == 0 })
        #expect(handedOver.contains { if case .queue(7, bypass: false) = $0 { true } else { false } })
        let clear = (~ConnectionCheck.packetBits, UInt32(0))
        for index in [0, 1, 2, 6, 7, 10] {
            #expect(Self.bitwise(rules[index]).contains { $0 == clear }, "rule \(index)")
        }
        // The bits are distinct and next to the connection mark's.
        #expect(ConnectionCheck.packetBits == 0x00f0_0000)
        #expect(
            ConnectionCheck.present & ConnectionCheck.needsName == 0
                && (ConnectionCheck.present | ConnectionCheck.needsName) & ConnectionCheck.mask == 0)
    }

    /// The daemon's three verdicts come back in the packet mark and go into the connection mark:
    /// refused (then reset), allowed by name, let go without a name (the firewall tells them apart).
    @Test func eachVerdictBecomesTheConnectionMark() {
        let rules = Self.rules(.ipv4, .output, .check)
        for (index, bits) in [ConnectionCheck.refused, ConnectionCheck.allowed, ConnectionCheck.unnamed].enumerated() {
            #expect(Self.compared(rules[index]).first == withUnsafeBytes(of: bits) { Array($0) })
            #expect(Self.bitwise(rules[index]).contains { $0 == (~ConnectionCheck.mask, bits) })
        }
        #expect(Set([ConnectionCheck.refused, ConnectionCheck.allowed, ConnectionCheck.unnamed]).count == 3)
        #expect([ConnectionCheck.refused, ConnectionCheck.allowed, ConnectionCheck.unnamed].allSatisfy { $0 & ~ConnectionCheck.mask == 0 })
    }

    @Test func reportsAreLimitedPerSecond() {
        var limit = ReportLimit(perSecond: 2)
        let admitted = [5_000_000_000, 5_100_000_000, 5_900_000_000, 6_000_000_000].map { limit.admit(now: $0) }
        #expect(admitted == [true, true, false, true])
    }

    @Test func addressesAsText() {
        #expect(RefusedConnection.text(of: [198, 18, 0, 5]) == "198.18.0.5")
        #expect(RefusedConnection.text(of: [0xfd, 0] + [UInt8](repeating: 0, count: 13) + [5]) == "fd00::5")
        #expect(RefusedConnection.text(of: [1, 2]) == "")
    }
}
