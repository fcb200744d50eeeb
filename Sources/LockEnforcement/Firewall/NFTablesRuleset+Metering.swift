import LockCore

/// The site meter's byte counters (`UsageMeter.firewall`): a named counter per metered name and
/// a map from each of the name's addresses to it, consulted for packets to those addresses
/// (output, forward) and from them (input, forward: the replies, which are what a stream is).
extension NFTablesRuleset {
    /// Counting the bytes that move to and from the addresses of metered names.
    public struct TrafficMetering: Sendable, Equatable {
        /// Single addresses of metered names, each with the one name its bytes count for.
        public var attribution: [IPNetwork: String]

        /// Creates the setting.
        public init(attribution: [IPNetwork: String]) { self.attribution = attribution }

        /// The names with a counter.
        public var names: Set<String> { Set(attribution.values) }
    }

    /// At most this many names get byte counters, the shortest first (a profile's and the
    /// service catalog's names are a few hundred).
    public static let maxMeterCounters = 1024

    /// Which name each address of `names` counts for. An address several names share (a CDN's)
    /// counts for the shortest of them, then the first in order, as blocked attempts do: the
    /// counters cannot tell which of the names a packet was for. Blocked addresses are left out:
    /// their packets are refused, not use.
    static func meterAttribution(
        _ names: [String], lookUp: ([String]) -> [IPNetwork], blocked: AddressIntervals
    ) -> TrafficMetering? {
        var attribution: [IPNetwork: String] = [:]
        var counted = 0
        for name in canonical(names).sorted(by: { ($0.count, $0) < ($1.count, $1) }) where counted < maxMeterCounters {
            var attributed = false
            for address in lookUp([name])
            where address.prefixLength == address.family.bitWidth && attribution[address] == nil && !blocked.contains(address) {
                attribution[address] = name
                attributed = true
            }
            if attributed { counted += 1 }
        }
        return attribution.isEmpty ? nil : TrafficMetering(attribution: attribution)
    }

    /// The name of the byte counter of metered `name` (a hash, like the attempt counters').
    public static func meterCounterName(for name: String) -> String { "m_" + counterName(for: name).dropFirst(2) }

    /// Every byte counter of the table, by counter name, with the name it counts for.
    public var meterCounters: [String: String] {
        guard let metering else { return [:] }
        return Dictionary(uniqueKeysWithValues: metering.names.map { (Self.meterCounterName(for: $0), $0) })
    }

    /// Declarations of the counters, the maps, the input hook and the chain that counts.
    var meterDeclarations: String {
        guard metering != nil else { return "" }
        var out = ""
        // Declared, never flushed, like the attempt counters: they keep counting across commits.
        for (counter, name) in meterCounters.sorted(by: { $0.key < $1.key }) {
            out += "\tcounter \(counter) {\n\t\tcomment \(Self.quoted(String(name.prefix(100))))\n\t}\n"
        }
        for family in IPNetwork.Family.allCases {
            out += "\tmap meters\(family == .ipv4 ? "4" : "6") {\n\t\ttype \(family == .ipv4 ? "ipv4_addr" : "ipv6_addr") : counter\n\t}\n"
        }
        out += "\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n"
        out += "\tchain usage {\n\t}\n"
        return out
    }

    /// Flushes the maps before they are filled again.
    var meterFlushes: String {
        guard metering != nil else { return "" }
        return ["4", "6"].map { "flush map inet \(table) meters\($0)\n" }.joined()
    }

    /// The maps' elements.
    var meterElements: String {
        guard let metering else { return "" }
        var out = ""
        for family in IPNetwork.Family.allCases {
            let elements = metering.attribution.filter { $0.key.family == family }.sorted { $0.key < $1.key }
                .map { "\($0.key.description) : \"\(Self.meterCounterName(for: $0.value))\"" }
            guard !elements.isEmpty else { continue }
            out += "add element inet \(table) meters\(family == .ipv4 ? "4" : "6") {"
            for (index, element) in elements.enumerated() {
                out += index % 4 == 0 ? "\n\t" : " "
                out += element
                if index < elements.count - 1 { out += "," }
            }
            out += "\n}\n"
        }
        return out
    }

    /// The base chains' jump to the counting chain, first, so that no verdict skips it.
    var meterJump: String { metering == nil ? "" : "\t\tjump usage\n" }

    /// The counting chain and the input hook; a packet whose address is in no map is not counted.
    var meterChains: String {
        guard metering != nil else { return "" }
        var out = "\tchain input {\n\t\tjump usage\n\t}\n\tchain usage {\n"
        for (family, map) in [("ip", "meters4"), ("ip6", "meters6")] {
            out += "\t\tcounter name \(family) daddr map @\(map)\n"
            out += "\t\tcounter name \(family) saddr map @\(map)\n"
        }
        return out + "\t}\n"
    }

    /// Parses the output of `list counters table inet TABLE`: packets and bytes per counter name.
    public static func parseCounterTotals(_ output: String) -> [String: (packets: UInt64, bytes: UInt64)] {
        var result: [String: (packets: UInt64, bytes: UInt64)] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "counter", words.count >= 2 {
                current = String(words[1])
            } else if let name = current, let index = words.firstIndex(of: "packets"), index + 1 < words.count,
                let packets = UInt64(words[index + 1])
            {
                let bytes = words.firstIndex(of: "bytes").flatMap { $0 + 1 < words.count ? UInt64(words[$0 + 1]) : nil } ?? 0
                result[name] = (packets, bytes)
                current = nil
            }
        }
        return result
    }
}
