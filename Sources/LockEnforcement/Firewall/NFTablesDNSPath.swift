import Foundation

/// What the kernel says about the DNS filter's path through the table, for the dns enforcer:
/// how much port-53 traffic carried the exemption mark, and other tables' NAT chains that could
/// send DNS elsewhere before the redirect.
public struct DNSPathReport: Sendable, Equatable {
    /// The exemption counters; nil when the table in force has none (no redirect, no mark).
    var exemption: ExemptionAccount.Reading?
    /// Other tables' chains that rewrite outgoing DNS before the redirect, each in a sentence.
    public var rivals: [String] = []
    /// Why the kernel could not be asked.
    public var problem: String?
}

/// Reads `DNSPathReport`s from libnftables' JSON listings.
enum NFTablesDNSPath {
    /// Our redirect's NAT priority (`NFTablesRuleset.script`); the lowest the kernel allows a
    /// NAT chain (above conntrack's -200).
    static let redirectPriority = -199

    static func read(committer: NFTablesCommitter, table: String, counted: Bool) async -> DNSPathReport {
        var report = DNSPathReport()
        do {
            if counted {
                report.exemption = exemption(fromCounters: try await committer.listJSON("list counters table inet \(table)"))
                if report.exemption == nil { report.problem = "the table's exemption counters cannot be read" }
            }
            let chains = try await committer.listJSON("list chains")
            var tables: [String: [[String: Any]]] = [:]
            for chain in rivalCandidates(chains, ownTable: table) {
                let key = "\(chain.family) \(chain.table)"
                if tables[key] == nil { tables[key] = objects(try await committer.listJSON("list table \(key)")) }
                if let why = rewritesDNS(chain: chain.name, in: tables[key] ?? [], visited: []) {
                    report.rivals.append(
                        "table \(key) has NAT chain \(chain.name) at priority \(chain.priority) on the output hook, "
                            + "at or before the filter's redirect (\(redirectPriority)), that can send DNS elsewhere (\(why))")
                }
            }
        } catch {
            report.problem = "the ruleset cannot be listed: \(error)"
        }
        return report
    }

    /// The objects of a JSON listing (`{"nftables": [{"counter": …}, …]}`).
    static func objects(_ json: String) -> [[String: Any]] {
        guard let top = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let list = top["nftables"] as? [[String: Any]]
        else { return [] }
        return list
    }

    /// The exemption counters of `list counters table inet TABLE`, with their handles.
    static func exemption(fromCounters json: String) -> ExemptionAccount.Reading? {
        var found: [String: (packets: UInt64, handle: Int)] = [:]
        for object in objects(json) {
            guard let counter = object["counter"] as? [String: Any], let name = counter["name"] as? String,
                let packets = (counter["packets"] as? NSNumber)?.uint64Value, let handle = (counter["handle"] as? NSNumber)?.intValue
            else { continue }
            found[name] = (packets, handle)
        }
        let names = NFTablesRuleset.exemptionCounters
        guard let udp = found[names[0]], let tcp = found[names[1]] else { return nil }
        return ExemptionAccount.Reading(
            traffic: ExemptedTraffic(datagrams: udp.packets, connections: tcp.packets), identity: [udp.handle, tcp.handle])
    }

    struct Chain: Equatable {
        var family: String
        var table: String
        var name: String
        var priority: Int
    }

    /// NAT chains of other tables on the output hook that run no later than the redirect: the
    /// first NAT chain to map a new flow decides where it goes, and of two at one priority the
    /// one registered first runs first (which one was is not listed).
    static func rivalCandidates(_ json: String, ownTable: String) -> [Chain] {
        objects(json).compactMap { object in
            guard let chain = object["chain"] as? [String: Any], chain["type"] as? String == "nat",
                chain["hook"] as? String == "output", let priority = (chain["prio"] as? NSNumber)?.intValue,
                priority <= redirectPriority, let family = chain["family"] as? String, let table = chain["table"] as? String,
                let name = chain["name"] as? String, !(family == "inet" && table == ownTable)
            else { return nil }
            return Chain(family: family, table: table, name: name, priority: priority)
        }
    }

    /// Why the rules of `chain` (and the chains it jumps to) may rewrite the destination of a
    /// packet to port 53; nil when no rule can: none rewrites it, or each that does matches a
    /// destination port other than 53.
    static func rewritesDNS(chain: String, in objects: [[String: Any]], visited: Set<String>) -> String? {
        guard !visited.contains(chain) else { return nil }
        let rules = objects.compactMap { $0["rule"] as? [String: Any] }.filter { $0["chain"] as? String == chain }
        for rule in rules {
            let expressions = rule["expr"] as? [[String: Any]] ?? []
            if expressions.contains(where: excludesPort53) { continue }
            for statement in expressions {
                for kind in ["dnat", "redirect", "vmap"] where statement[kind] != nil { return kind }
                for kind in ["jump", "goto"] {
                    guard let target = (statement[kind] as? [String: Any])?["target"] as? String else { continue }
                    if let why = rewritesDNS(chain: target, in: objects, visited: visited.union([chain])) { return why }
                }
            }
        }
        return nil
    }

    /// A match on the destination port that 53 fails (`tcp dport 80`, `th dport { 80, 443 }`).
    static func excludesPort53(_ expression: [String: Any]) -> Bool {
        guard let match = expression["match"] as? [String: Any], let left = match["left"] as? [String: Any],
            (left["payload"] as? [String: Any])?["field"] as? String == "dport"
        else { return false }
        let op = match["op"] as? String ?? "=="
        let right = match["right"]
        let includes53: Bool
        if let port = (right as? NSNumber)?.intValue {
            includes53 = port == 53
        } else if let set = (right as? [String: Any])?["set"] as? [Any] {
            includes53 = set.contains { element in
                if let port = (element as? NSNumber)?.intValue { return port == 53 }
                if let range = (element as? [String: Any])?["range"] as? [NSNumber], range.count == 2 {
                    return range[0].intValue <= 53 && 53 <= range[1].intValue
                }
                return true
            }
        } else if let range = (right as? [String: Any])?["range"] as? [NSNumber], range.count == 2 {
            includes53 = range[0].intValue <= 53 && 53 <= range[1].intValue
        } else {
            return false
        }
        switch op {
        case "==", "in": return !includes53
        case "!=": return includes53
        default: return false
        }
    }
}
