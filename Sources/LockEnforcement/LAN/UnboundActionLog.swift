import LockCore

/// Blocked attempts read from Unbound's log with `log-local-actions: yes`: each answer from a
/// local zone is logged as `ZONE. TYPE CLIENT@PORT NAME. QTYPE QCLASS`; the blocking ones
/// (`always_nxdomain`, `always_null`) are counted per device group of the client (`lan` for
/// clients in no group). With `log-queries: yes` each query is logged as
/// `info: CLIENT NAME. QTYPE QCLASS`; those of a device group's clients are counted for the
/// group meter (`takeQueries`).
public struct UnboundActionLog: Sendable, Equatable {
    /// Blocked queries per target (a device group, or `lan`).
    public private(set) var attempts: [String: Int] = [:]
    /// Queries per device group since `takeQueries`.
    public private(set) var queries: [String: Int] = [:]
    /// Bytes of the log read so far.
    public private(set) var offset: Int = 0

    /// Starts counting at `offset` bytes into the log.
    public init(offset: Int = 0) { self.offset = offset }

    /// The zone and client address of one log line, when it is a blocking local-zone answer.
    public static func blocked(in line: Substring) -> (zone: String, client: String)? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let type = fields.firstIndex(where: { $0 == "always_nxdomain" || $0 == "always_null" }),
            type > fields.startIndex, type + 1 < fields.endIndex
        else { return nil }
        let zone = fields[type - 1]
        let client = fields[type + 1]
        guard zone.hasSuffix("."), let at = client.lastIndex(of: "@") else { return nil }
        var name = String(zone.dropLast())
        if name.isEmpty { name = "." }
        return (name, String(client[..<at]))
    }

    /// The client address of one `log-queries` line (`… info: 10.77.1.10 example.com. A IN`).
    public static func query(in line: Substring) -> String? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let info = fields.firstIndex(of: "info:"), fields.endIndex - info == 5, fields[info + 2].hasSuffix("."),
            fields[info + 4] == "IN" || fields[info + 4] == "CH"
        else { return nil }
        return String(fields[info + 1])
    }

    /// The queries per device group counted so far, emptied.
    public mutating func takeQueries() -> [String: Int] {
        defer { queries = [:] }
        return queries
    }

    /// Counts the blocking answers in `text` (the log's bytes from `offset` on) for zones in
    /// `zones`, attributing each client to its device group.
    public mutating func read(_ text: Substring, bytes: Int, zones: UnboundZones, groups: [DeviceGroup]) {
        offset += bytes
        func group(of client: String) -> DeviceGroup? {
            (try? IPNetwork(parsing: client)).flatMap { address in groups.first { $0.networks.contains { $0.contains(address) } } }
        }
        for line in text.split(separator: "\n") {
            if let client = Self.query(in: line) {
                if let group = group(of: client) { queries[group.name, default: 0] += 1 }
                continue
            }
            guard let (zone, client) = Self.blocked(in: line) else { continue }
            let group = group(of: client)
            let ours = zones.global[zone] != nil || group.map { zones.views[UnboundZones.viewName($0.name)]?[zone] != nil } == true
            guard ours else { continue }
            attempts[group?.name ?? BlockTarget.lanName, default: 0] += 1
        }
    }

    /// The log was rotated or truncated: read it from its start.
    public mutating func restart() { offset = 0 }
}
