import LockCore

/// The firewall meter's part of the nftables enforcer's state: the names whose bytes are
/// counted while the table exists (the site meter's names), and what their counters are called.
struct FirewallMeter: Sendable {
    /// The names to count, as the site meter gave them.
    var names: [String] = []
    /// Every byte counter committed so far, with the name it counts for.
    private var counterNames: [String: String] = [:]

    /// Notes the counters of a committed ruleset.
    mutating func committed(_ ruleset: NFTablesRuleset) {
        counterNames.merge(ruleset.meterCounters) { _, new in new }
    }

    /// Bytes counted per name so far (totals, both directions), from `list counters` output.
    func totals(from output: String) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for (counter, counts) in NFTablesRuleset.parseCounterTotals(output) {
            guard let name = counterNames[counter] else { continue }
            result[name, default: 0] &+= counts.bytes
        }
        return result
    }
}
