/// The blocked-attempt counters' bookkeeping: which name each committed counter counts for,
/// what each held at the last read, and the attempts counted per name since the daemon started.
struct AttemptCounters: Sendable {
    /// Every counter committed so far, with the name it counts for.
    private var counterNames: [String: String] = [:]
    /// Each counter's packets at the last read.
    private var lastCounts: [String: UInt64] = [:]
    /// Attempts counted per name since the daemon started.
    private(set) var totals: [String: UInt64] = [:]

    /// Notes the counters of a committed ruleset; without counting, the table's counters went.
    mutating func committed(_ ruleset: NFTablesRuleset) {
        if ruleset.counting == nil { lastCounts = [:] }
        counterNames.merge(ruleset.counters) { _, new in new }
    }

    /// Takes a `list counters` output; returns how much each name's attempts grew since the last read.
    mutating func read(_ output: String) -> [(name: String, grown: UInt64)] {
        var result: [(name: String, grown: UInt64)] = []
        for (counter, packets) in NFTablesRuleset.parseCounters(output) {
            guard let name = counterNames[counter] else { continue }
            let last = lastCounts[counter] ?? 0
            // Smaller than before: the table was recreated and the counter started again.
            let grown = packets >= last ? packets - last : packets
            lastCounts[counter] = packets
            guard grown > 0 else { continue }
            totals[name, default: 0] += grown
            result.append((name, grown))
        }
        return result
    }
}
