import LockCore

/// The complete content of the daemon's nftables table for one desired state, and the nft
/// script that installs it in a single transaction.
///
/// Pure: built from the desired block, the addresses resolved so far, the DoH list and the
/// resolvers in use, so every decision about what gets blocked can be tested without a kernel.
public struct NFTablesRuleset: Sendable, Equatable {
    /// What the table does.
    public enum Mode: String, Sendable, Equatable {
        /// Nothing blocked: the table does not exist.
        case off
        /// Listed addresses are refused, everything else passes.
        case blocklist
        /// Everything outgoing is refused except allowed addresses and basic services.
        case allowlist
        /// Nothing blocked, but the machine's DNS goes through the DNS filter, whose answers
        /// the site meter counts (`DNSRedirect.metering`); nothing else is refused.
        case meter
    }

    /// The table's name (family `inet`); the daemon uses `simplylock`.
    public let table: String
    /// What the table does.
    public let mode: Mode
    /// DNS servers the daemon resolves with: DNS and DoT to them always pass.
    public let resolvers: AddressIntervals
    /// Addresses refused on every protocol and port.
    public let block: AddressIntervals
    /// DoH/DoT endpoints, refused on ports 443 and 853 only.
    public let doh: AddressIntervals
    /// Allowlist mode only: the only addresses reachable besides loopback and basic services.
    public let allow: AddressIntervals
    /// While set (and anything is blocked): outgoing DNS goes to the DNS filter instead, and
    /// DNS-over-TLS is refused.
    public let dnsRedirect: DNSRedirect?

    /// Whether and how connection attempts to blocked addresses are counted (nil: not at all).
    public let counting: AttemptCounting?
    /// Single blocked addresses with the name each was resolved from: what an attempt to it is
    /// reported as (an address a profile lists is reported as itself).
    public let attribution: [IPNetwork: String]
    /// The names with a counter of their own; attempts to every other blocked address share one.
    public let countedNames: Set<String>
    /// Byte counters per metered name (the site meter's firewall meter); nil when none.
    public let metering: TrafficMetering?
    /// TCP to the addresses blocked names resolve to (`block4`/`block6`, `named4`/`named6`) is
    /// handed over to the connection check, which lets other sites on them through, instead of
    /// being reset; only while the check's tables mark packets (`ConnectionCheck.present`), else
    /// it is reset as before. Blocklists with counting only: counting is what keeps those addresses apart from
    /// the ones profiles list, which stay refused outright.
    public let connectionHandoff: Bool

    /// Counting blocked connection attempts: a named counter per blocked name, a map from
    /// each of its addresses to that counter, consulted by a rule before the rejects (the
    /// rejects never depend on it), one shared counter for every other blocked address, and
    /// optionally an NFLOG group that hears of each attempt as it happens (with the address).
    public struct AttemptCounting: Sendable, Equatable {
        /// The NFLOG group to send each attempt to, when a reader listens on it.
        public var logGroup: UInt16?

        /// Creates the setting.
        public init(logGroup: UInt16? = nil) { self.logGroup = logGroup }
    }

    /// The counter of attempts to blocked addresses without a counter of their name: those
    /// that profiles list (single addresses and networks), and those of names past
    /// `maxNamedCounters`.
    public static let sharedCounter = "a_shared"
    /// The name attempts counted by `sharedCounter` are reported under, in the counter's comment.
    public static let sharedName = "(listed addresses)"
    /// At most this many names get a counter of their own, the shortest first. Each counter is
    /// a kernel object that nft creates, and the kernel lists, one by one: with a counter per
    /// address, committing a profile of 100 000 addresses took six times as long as loading
    /// the same set with `nft -f`.
    public static let maxNamedCounters = 2048
    /// At most this many attempts a second reach the NFLOG group; the counters count every one.
    public static let logRate = 50

    /// The daemon's table name.
    public static let defaultTable = "simplylock"

    /// Answers that never go into the sets when they come from DNS: the unspecified addresses
    /// (how hosts-file-reading resolvers and filtering services say "blocked") and the loopback
    /// host addresses, which local services (stub resolvers, caches) listen on. Addresses a
    /// profile lists explicitly are used as given.
    public static let neverBlockedWhenResolved: [IPNetwork] = [
        "0.0.0.0/8", "127.0.0.0/8", "::", "::1", "::ffff:0.0.0.0/104", "::ffff:127.0.0.0/104",
    ].map { try! IPNetwork(parsing: $0) }

    /// Ports of encrypted DNS: DoH (TCP 443, and UDP 443 for HTTP/3) and DoT/DoQ (853).
    public static let encryptedDNSPorts: [UInt16] = [443, 853]

    /// Creates a ruleset from its parts as they are.
    public init(
        table: String = defaultTable, mode: Mode, resolvers: AddressIntervals = .empty,
        block: AddressIntervals = .empty, doh: AddressIntervals = .empty, allow: AddressIntervals = .empty,
        dnsRedirect: DNSRedirect? = nil, counting: AttemptCounting? = nil, attribution: [IPNetwork: String] = [:],
        countedNames: Set<String> = [], metering: TrafficMetering? = nil, connectionHandoff: Bool = false
    ) {
        self.metering = mode == .off ? nil : metering
        self.table = table
        self.mode = mode
        self.resolvers = resolvers
        self.block = block
        self.doh = doh
        self.allow = allow
        self.dnsRedirect = mode == .off ? nil : dnsRedirect
        self.counting = mode == .blocklist ? counting : nil
        self.attribution = self.counting == nil ? [:] : attribution
        self.countedNames = self.counting == nil ? [] : countedNames
        self.connectionHandoff = self.counting != nil && connectionHandoff
    }

    /// Builds the ruleset for a desired state.
    ///
    /// - Parameters:
    ///   - resolved: the addresses known for a name (as given by `namesToResolve`).
    ///   - doh: DoH endpoints; blocked whenever anything is blocked.
    ///   - nameservers: the resolvers the daemon uses.
    ///   - dnsRedirect: the DNS filter to send the machine's DNS to during the block, if any.
    ///   - counting: count connection attempts to blocked addresses per name (blocklists only).
    ///   - metered: names whose traffic is counted in bytes while the table exists (the site meter).
    ///   - connectionHandoff: the connection check is in force (`connectionHandoff`).
    public init(
        table: String = defaultTable, desired: DesiredBlock,
        resolved: (String) -> [IPNetwork], doh: DoHList, nameservers: [IPNetwork],
        dnsRedirect: DNSRedirect? = nil, counting: AttemptCounting? = nil,
        metered: [String] = [], connectionHandoff: Bool = false
    ) {
        func lookUp(_ domains: some Sequence<String>) -> [IPNetwork] {
            Self.canonical(domains).flatMap(resolved).filter { address in
                !Self.neverBlockedWhenResolved.contains { $0.contains(address) }
            }
        }
        guard desired.blocksNetwork else {
            if let dnsRedirect, dnsRedirect.metering {
                self.init(
                    table: table, mode: .meter, resolvers: AddressIntervals(nameservers), dnsRedirect: dnsRedirect,
                    metering: Self.meterAttribution(metered, lookUp: lookUp, blocked: .empty))
            } else {
                self.init(table: table, mode: .off)
            }
            return
        }
        let block = AddressIntervals(desired.addresses + lookUp(desired.domains))
        var attribution: [IPNetwork: String] = [:]
        var countedNames: Set<String> = []
        if counting != nil {
            // An address several names share counts for the shortest (reddit.com before
            // www.reddit.com), then the first in order.
            let names = Self.canonical(desired.domains).sorted { ($0.count, $0) < ($1.count, $1) }
            // Handed over, an address a profile lists too would let other names through: it
            // stays with the listed ones.
            let listed = connectionHandoff ? AddressIntervals(desired.addresses) : .empty
            for name in names {
                var attributed = false
                for address in lookUp([name]) where attribution[address] == nil && !listed.contains(address) {
                    attribution[address] = name
                    attributed = true
                }
                if attributed, countedNames.count < Self.maxNamedCounters { countedNames.insert(name) }
            }
        }
        self.init(
            table: table,
            mode: desired.allowOnly == nil ? .blocklist : .allowlist,
            resolvers: AddressIntervals(nameservers),
            block: block,
            doh: AddressIntervals(doh.addresses + lookUp(doh.names)),
            allow: AddressIntervals((desired.allowOnly?.addresses ?? []) + lookUp(desired.allowOnly?.domains ?? [])),
            dnsRedirect: dnsRedirect, counting: counting, attribution: attribution, countedNames: countedNames,
            metering: Self.meterAttribution(metered, lookUp: lookUp, blocked: block),
            connectionHandoff: desired.allowOnly == nil && connectionHandoff)
    }

    /// The name of the counter of attempts to `name`'s addresses: a hash, since counter names
    /// allow fewer characters than domain names (the comment holds the name).
    public static func counterName(for name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "a_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Every counter of the table, by counter name, with the name it counts for.
    public var counters: [String: String] {
        guard counting != nil else { return [:] }
        var result = [Self.sharedCounter: Self.sharedName]
        for name in countedNames { result[Self.counterName(for: name)] = name }
        return result
    }

    /// The blocked single addresses whose name has a counter of its own.
    func countedAddresses(_ family: IPNetwork.Family) -> [IPNetwork: String] {
        attribution.filter { $0.key.family == family && countedNames.contains($0.value) && block.contains($0.key) }
    }

    /// The elements of the map from blocked address to counter, per family.
    func attemptMap(_ family: IPNetwork.Family) -> [String] {
        countedAddresses(family).sorted { $0.key < $1.key }
            .map { "\($0.key.description) : \"\(Self.counterName(for: $0.value))\"" }
    }

    /// Every name whose addresses the ruleset for `desired` needs: blocked and allowed domains
    /// exactly as given (the daemon's desired state already includes `www.` twins, and leaves
    /// a twin out where an exception covers it), and the DoH names while anything is blocked.
    /// Sorted, unique, canonical (lowercase, no trailing dot).
    public static func namesToResolve(for desired: DesiredBlock, doh: DoHList) -> [String] {
        guard desired.blocksNetwork else { return [] }
        var names = Set(canonical(desired.domains))
        names.formUnion(canonical(desired.allowOnly?.domains ?? []))
        names.formUnion(doh.names)
        return names.sorted()
    }

    static func canonical(_ domains: some Sequence<String>) -> [String] {
        domains.map(DNSMessage.canonical).filter { !$0.isEmpty }
    }

    /// Elements in the table's sets (the number `lockctl status` shows): addresses and ranges.
    public var elementCount: Int {
        guard mode != .off else { return 0 }
        return [block, doh, allow, resolvers].reduce(0) { total, intervals in
            total
                + IPNetwork.Family.allCases.reduce(0) { sum, family in
                    let split = intervals.split(family)
                    return sum + split.addresses.count + split.ranges.count
                }
        }
    }

    /// The sets of the table: name, address type, and whether it holds ranges.
    ///
    /// Blocked addresses live in hash sets plus an interval set for ranges (`blocknet4`),
    /// because nft reads an interval set's current elements back before changing it (to check
    /// overlaps), which for large lists doubles the time and memory of a commit. While attempts
    /// are counted, the addresses of names with a counter of their own are in `block4` and every
    /// other single address in `shared4`; otherwise all are in `block4`. Handed over to the
    /// connection check, the addresses of names past the counter cap are in `named4` rather than
    /// `shared4`, which then holds the addresses profiles list. The other lists are small and use
    /// interval sets only.
    var sets: [NamedSet] {
        var result: [NamedSet] = []
        for family in IPNetwork.Family.allCases {
            let suffix = family == .ipv4 ? "4" : "6"
            let counted = counting == nil ? [] : Set(countedAddresses(family).keys.map(\.address))
            let blocked = block.split(family, apart: counted)
            // Handed over, the addresses of names past the counter cap stay apart from the listed
            // ones: they are names' addresses too.
            let named =
                connectionHandoff
                ? Set(attribution.keys.filter { $0.family == family && !counted.contains($0.address) }.map(\.description)) : []
            result.append(("resolvers\(suffix)", family, true, resolvers.elements(family)))
            result.append(("block\(suffix)", family, false, counting == nil ? blocked.addresses : blocked.separated))
            if connectionHandoff { result.append(("named\(suffix)", family, false, blocked.addresses.filter(named.contains))) }
            result.append(("shared\(suffix)", family, false, counting == nil ? [] : blocked.addresses.filter { !named.contains($0) }))
            result.append(("blocknet\(suffix)", family, true, blocked.ranges))
            result.append(("doh\(suffix)", family, true, doh.elements(family)))
            result.append(("allow\(suffix)", family, true, mode == .allowlist ? allow.elements(family) : []))
        }
        return result
    }

    /// Parses the output of `list counters table inet TABLE`: packets per counter name.
    public static func parseCounters(_ output: String) -> [String: UInt64] {
        parseCounterTotals(output).mapValues(\.packets)
    }
}
