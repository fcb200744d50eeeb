import CNFTables
import Testing

@testable import LockEnforcement

/// The queue tables' rules in order (what the kernel does with them is netns-web-test.sh's).
@Suite struct ConnectionCheckTablesTests {
    static func summary(_ rule: [ConnectionCheckTables.Expression]) -> String {
        rule.map { expression in
            switch expression {
            case .queue(let queue): "queue \(queue)"
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

    @Test func verdictMarksComeFirstThenTheResetThenTheExemptionsAndTheQueueLast() {
        let rules = ConnectionCheckTables.rules(ConnectionCheck(queue: 7), family: .ipv4, hook: .output).map(Self.summary)
        #expect(
            rules == [
                "ct set meta set", "ct set meta set accept", "reset", "oifname accept", "icmp 13", "accept", "accept", "queue 7",
            ])
    }

    /// A router's forwarded packets have no loopback to exempt; IPv6 refuses with its own code.
    @Test func forwardedIPv6() {
        let rules = ConnectionCheckTables.rules(ConnectionCheck(queue: 7), family: .ipv6, hook: .forward).map(Self.summary)
        #expect(rules == ["ct set meta set", "ct set meta set accept", "reset", "icmp 1", "accept", "accept", "queue 7"])
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
