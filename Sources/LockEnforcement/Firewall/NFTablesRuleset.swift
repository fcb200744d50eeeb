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
    /// While set (and anything is blocked): new TCP connections' first packets go to the
    /// daemon's name check, connections it refuses are reset, and HTTP/3 is refused.
    public let connectionCheck: ConnectionCheck?

    /// Whether and how connection attempts to blocked addresses are counted (nil: not at all).
    public let counting: AttemptCounting?
    /// Single blocked addresses with the name each was resolved from: what an attempt to it is
    /// reported as (an address a profile lists is reported as itself).
    public let attribution: [IPNetwork: String]
    /// The names with a counter of their own; attempts to every other blocked address share one.
    public let countedNames: Set<String>

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
        "0.0.0.0/8", "127.0.0.1", "::", "::1",
    ].map { try! IPNetwork(parsing: $0) }

    /// Ports of encrypted DNS: DoH (TCP 443, and UDP 443 for HTTP/3) and DoT/DoQ (853).
    public static let encryptedDNSPorts: [UInt16] = [443, 853]

    /// Creates a ruleset from its parts as they are.
    public init(
        table: String = defaultTable, mode: Mode, resolvers: AddressIntervals = .empty,
        block: AddressIntervals = .empty, doh: AddressIntervals = .empty, allow: AddressIntervals = .empty,
        dnsRedirect: DNSRedirect? = nil, counting: AttemptCounting? = nil, attribution: [IPNetwork: String] = [:],
        countedNames: Set<String> = [], connectionCheck: ConnectionCheck? = nil
    ) {
        self.connectionCheck = mode == .off ? nil : connectionCheck
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
    }

    /// Builds the ruleset for a desired state.
    ///
    /// - Parameters:
    ///   - resolved: the addresses known for a name (as given by `namesToResolve`).
    ///   - doh: DoH endpoints; blocked whenever anything is blocked.
    ///   - nameservers: the resolvers the daemon uses.
    ///   - dnsRedirect: the DNS filter to send the machine's DNS to during the block, if any.
    ///   - counting: count connection attempts to blocked addresses per name (blocklists only).
    public init(
        table: String = defaultTable, desired: DesiredBlock,
        resolved: (String) -> [IPNetwork], doh: DoHList, nameservers: [IPNetwork],
        dnsRedirect: DNSRedirect? = nil, counting: AttemptCounting? = nil, connectionCheck: ConnectionCheck? = nil
    ) {
        guard desired.blocksNetwork else {
            if let dnsRedirect, dnsRedirect.metering {
                self.init(table: table, mode: .meter, resolvers: AddressIntervals(nameservers), dnsRedirect: dnsRedirect)
            } else {
                self.init(table: table, mode: .off)
            }
            return
        }
        func lookUp(_ domains: some Sequence<String>) -> [IPNetwork] {
            Self.canonical(domains).flatMap(resolved).filter { address in
                !Self.neverBlockedWhenResolved.contains { $0.contains(address) }
            }
        }
        let block = AddressIntervals(desired.addresses + lookUp(desired.domains))
        var attribution: [IPNetwork: String] = [:]
        var countedNames: Set<String> = []
        if counting != nil {
            // An address several names share counts for the shortest (reddit.com before
            // www.reddit.com), then the first in order.
            let names = Self.canonical(desired.domains).sorted { ($0.count, $0) < ($1.count, $1) }
            for name in names {
                var attributed = false
                for address in lookUp([name]) where attribution[address] == nil {
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
            connectionCheck: connectionCheck)
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
    private func countedAddresses(_ family: IPNetwork.Family) -> [IPNetwork: String] {
        attribution.filter { $0.key.family == family && countedNames.contains($0.value) && block.contains($0.key) }
    }

    /// The elements of the map from blocked address to counter, per family.
    private func attemptMap(_ family: IPNetwork.Family) -> [String] {
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
    /// other single address in `shared4`; otherwise all are in `block4`. The other lists are
    /// small and use interval sets only.
    private var sets: [NamedSet] {
        var result: [NamedSet] = []
        for family in IPNetwork.Family.allCases {
            let suffix = family == .ipv4 ? "4" : "6"
            let counted = counting == nil ? [] : Set(countedAddresses(family).keys.map(\.address))
            let blocked = block.split(family, apart: counted)
            result.append(("resolvers\(suffix)", family, true, resolvers.elements(family)))
            result.append(("block\(suffix)", family, false, counting == nil ? blocked.addresses : blocked.separated))
            result.append(("shared\(suffix)", family, false, counting == nil ? [] : blocked.addresses))
            result.append(("blocknet\(suffix)", family, true, blocked.ranges))
            result.append(("doh\(suffix)", family, true, doh.elements(family)))
            result.append(("allow\(suffix)", family, true, mode == .allowlist ? allow.elements(family) : []))
        }
        return result
    }

    /// The nft script that puts this ruleset in force in one transaction, updating the table in
    /// place: the table, its sets and its base chains are created if missing and otherwise kept;
    /// every rule and every set element is replaced.
    ///
    /// libnftables sends the whole script as one netlink batch and the kernel commits it
    /// atomically. Keeping the chains and sets (rather than deleting and recreating the table)
    /// matters for that atomicity: a packet being evaluated while the commit switches
    /// generations sees either the old or the new elements of the *same* sets through the same
    /// chain, whereas with a recreated table a packet can pass through the new chain just
    /// before the switch (no rules yet) and the old one just after (its sets already emptied).
    /// No other table is named; when nothing is blocked the table is deleted.
    public var script: String {
        guard mode != .off else { return deletion }
        // Splitting 100 000 addresses into sets is the costly part of a script: done once.
        let sets = self.sets
        var out = declarations(sets)
        out += "flush table inet \(table)\n"
        for set in sets { out += "flush set inet \(table) \(set.name)\n" }
        if counting != nil {
            for family in ["4", "6"] { out += "flush map inet \(table) attempts\(family)\n" }
        }
        appendContents(&out, sets)
        return out
    }

    /// Deletes the table and creates it anew: the fallback when `script` is refused because the
    /// existing table has a shape an update cannot reach (a base chain recreated with another
    /// priority, a set with another type). Not the normal path: see `script` for why.
    public var replacementScript: String {
        guard mode != .off else { return deletion }
        let sets = self.sets
        var out = deletion + declarations(sets)
        appendContents(&out, sets)
        return out
    }

    /// `add table` first so that `delete table` cannot fail when the table is absent.
    private var deletion: String { "table inet \(table)\ndelete table inet \(table)\n" }

    private typealias NamedSet = (name: String, family: IPNetwork.Family, interval: Bool, elements: [String])

    private func declarations(_ sets: [NamedSet]) -> String {
        var out = "table inet \(table) {\n"
        out += "\tcomment \"SimplyLock focus block; owned by simplylockd, rewritten as a whole\"\n"
        for set in sets {
            out += "\tset \(set.name) {\n\t\ttype \(set.family == .ipv4 ? "ipv4_addr" : "ipv6_addr")\n"
            if set.interval { out += "\t\tflags interval\n" }
            out += "\t}\n"
        }
        if counting != nil {
            // Counters are declared, never flushed: they keep counting across commits, and the
            // daemon reads how much each grew.
            for (counter, name) in counters.sorted(by: { $0.key < $1.key }) {
                out += "\tcounter \(counter) {\n\t\tcomment \(Self.quoted(String(name.prefix(100))))\n\t}\n"
            }
            for family in IPNetwork.Family.allCases {
                out +=
                    "\tmap attempts\(family == .ipv4 ? "4" : "6") {\n\t\ttype \(family == .ipv4 ? "ipv4_addr" : "ipv6_addr") : counter\n\t}\n"
            }
        }
        // Local traffic and forwarded traffic (the machine as a router) go through the same
        // checks; a chain has one hook, hence two base chains. `policy accept` is restated so
        // that a policy changed from outside is put back.
        out += """
            \tchain output {
            \t\ttype filter hook output priority filter; policy accept;
            \t}
            \tchain forward {
            \t\ttype filter hook forward priority filter; policy accept;
            \t}
            \tchain enforce {
            \t}

            """
        // A NAT hook makes the kernel track every connection, so the chain exists only when a
        // redirect is wanted. Priority -100 is `dstnat`, a name nft 1.0.6 refuses for inet output.
        if dnsRedirect != nil {
            out += "\tchain dnsredirect {\n\t\ttype nat hook output priority -100; policy accept;\n\t}\n"
        }
        out += "}\n"
        return out
    }

    private func appendContents(_ out: inout String, _ sets: [NamedSet]) {
        out.reserveCapacity(out.utf8.count + 24 * (block.count + doh.count + allow.count) + 4096)
        for set in sets where !set.elements.isEmpty {
            out += "add element inet \(table) \(set.name) {"
            for (index, element) in set.elements.enumerated() {
                out += index % 8 == 0 ? "\n\t" : " "
                out += element
                if index < set.elements.count - 1 { out += "," }
            }
            out += "\n}\n"
        }
        for family in IPNetwork.Family.allCases where counting != nil {
            let elements = attemptMap(family)
            guard !elements.isEmpty else { continue }
            out += "add element inet \(table) attempts\(family == .ipv4 ? "4" : "6") {"
            for (index, element) in elements.enumerated() {
                out += index % 4 == 0 ? "\n\t" : " "
                out += element
                if index < elements.count - 1 { out += "," }
            }
            out += "\n}\n"
        }
        let ports = Self.encryptedDNSPorts.map(String.init).joined(separator: ", ")
        out += """
            table inet \(table) {
            \tchain output {
            \t\tjump enforce
            \t}
            \tchain forward {
            \t\tjump enforce
            \t}
            \tchain enforce {

            """
        // Traffic that stays on the machine is never blocked: local services, and the reject
        // packets themselves, which go back to a local address and would otherwise be dropped
        // when the machine's own address lies in a blocked range (connects would then hang
        // instead of failing at once).
        out += "\t\toifname \"lo\" accept\n"
        if dnsRedirect != nil, mode != .meter {
            // Plain DNS goes to the filter; DNS over TLS (and QUIC) would walk past it.
            out += "\t\tmeta l4proto tcp th dport 853 reject with tcp reset\n"
            out += "\t\tmeta l4proto udp th dport 853 reject with icmpx admin-prohibited\n"
        }
        out += connectionCheckRules
        // DNS to the daemon's own resolvers next, so no set can cut off name resolution
        // (a blocked domain sharing an address with the resolver, or 8.8.8.8 in the DoH list).
        out += "\t\tip daddr @resolvers4 meta l4proto { tcp, udp } th dport { 53, 853 } accept\n"
        out += "\t\tip6 daddr @resolvers6 meta l4proto { tcp, udp } th dport { 53, 853 } accept\n"
        if let counting {
            // Counted before the rejects, in rules of their own: a TCP connection attempt is its
            // first SYN; other protocols count every packet. The log statement's rate limit
            // spares the NFLOG reader floods, never the counters.
            let log = counting.logGroup.map { " limit rate \(Self.logRate)/second log prefix \"simplylock \" group \($0)" } ?? ""
            for (match, family) in [("ip daddr", "4"), ("ip6 daddr", "6")] {
                for protocolMatch in ["tcp flags & (syn | ack) == syn", "meta l4proto udp"] {
                    out += "\t\t\(match) @block\(family) \(protocolMatch) counter name \(match) map @attempts\(family)\(log)\n"
                    for set in ["shared", "blocknet"] {
                        out += "\t\t\(match) @\(set)\(family) \(protocolMatch) counter name \(Self.sharedCounter)\(log)\n"
                    }
                }
            }
        }
        // Reject rather than drop: connects fail at once instead of hanging, and established
        // connections are matched too, so an open tab is cut off on its next packet.
        for (match, set) in [
            ("ip daddr", "block4"), ("ip daddr", "shared4"), ("ip daddr", "blocknet4"),
            ("ip6 daddr", "block6"), ("ip6 daddr", "shared6"), ("ip6 daddr", "blocknet6"),
        ] {
            out += "\t\t\(match) @\(set) meta l4proto tcp reject with tcp reset\n"
            out += "\t\t\(match) @\(set) reject with icmpx admin-prohibited\n"
        }
        for (match, set) in [("ip daddr", "doh4"), ("ip6 daddr", "doh6")] {
            out += "\t\t\(match) @\(set) meta l4proto tcp th dport { \(ports) } reject with tcp reset\n"
            out += "\t\t\(match) @\(set) meta l4proto udp th dport { \(ports) } reject with icmpx admin-prohibited\n"
        }
        if mode == .allowlist {
            // Replies of connections that others opened to this machine (its SSH server), DHCP,
            // NTP and IPv6 neighbour discovery keep the machine itself working.
            out += """
                \t\tct direction reply accept
                \t\tudp sport 68 udp dport 67 accept
                \t\tudp sport 546 udp dport 547 accept
                \t\tudp dport 123 accept
                \t\ticmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, mld-listener-report, mld2-listener-report } accept
                \t\tip daddr @allow4 accept
                \t\tip6 daddr @allow6 accept
                \t\tmeta l4proto tcp reject with tcp reset
                \t\treject with icmpx admin-prohibited

                """
        }
        out += "\t}\n"
        if let dnsRedirect {
            out += "\tchain dnsredirect {\n"
            // The filter's own upstream queries, and DNS to this machine's own addresses (its
            // stub resolver, the filter itself), go where they were sent. The socket's mark,
            // not the packet's: another table can set a packet's mark on everyone's DNS (and
            // did, to get past the filter), while SO_MARK on a socket needs CAP_NET_ADMIN in
            // the process that owns it.
            if let mark = dnsRedirect.mark { out += "\t\tsocket mark \(Self.hex(mark)) return\n" }
            out += "\t\tfib daddr type local return\n"
            out += "\t\tmeta l4proto { tcp, udp } th dport 53 redirect to :\(dnsRedirect.port)\n"
            out += "\t}\n"
        }
        out += "}\n"
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }

    /// A double-quoted nft string; nft has no escapes, so quotes and backslashes are dropped.
    private static func quoted(_ text: String) -> String {
        "\"" + text.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline } + "\""
    }

    /// Parses the output of `list counters table inet TABLE`: packets per counter name.
    public static func parseCounters(_ output: String) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "counter", words.count >= 2 {
                current = String(words[1])
            } else if let name = current, let index = words.firstIndex(of: "packets"), index + 1 < words.count,
                let packets = UInt64(words[index + 1])
            {
                result[name] = packets
                current = nil
            }
        }
        return result
    }
}
