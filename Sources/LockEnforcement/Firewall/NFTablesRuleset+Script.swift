import LockCore

/// The ruleset as nft script: the table with its sets, counters and chains, and the
/// replacement that swaps a whole table in one transaction.
extension NFTablesRuleset {
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
        out += meterFlushes
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
    var deletion: String { "table inet \(table)\ndelete table inet \(table)\n" }

    typealias NamedSet = (name: String, family: IPNetwork.Family, interval: Bool, elements: [String])

    func declarations(_ sets: [NamedSet]) -> String {
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
        out += meterDeclarations
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
        if connectionHandoff { out += "\tchain handoff {\n\t}\n" }
        // A NAT hook makes the kernel track every connection, so the chain exists only when a
        // redirect is wanted. The first NAT chain to rewrite a new flow decides where it goes:
        // -199, the earliest a NAT chain may run (after conntrack, -200), so that another
        // table's DNAT of port 53 at `dstnat` (-100) or before cannot take DNS past the filter.
        // At -199 itself the chain registered last runs first: the dns enforcer reports such
        // chains of other tables (`NFTablesDNSPath`).
        if dnsRedirect != nil {
            out += "\tchain dnsredirect {\n\t\ttype nat hook output priority -199; policy accept;\n\t}\n"
        }
        if dnsRedirect?.mark != nil {
            // Like the attempt counters: declared, never flushed, read and compared with what
            // the daemon sent (`ExemptionAccount`).
            for counter in Self.exemptionCounters { out += "\tcounter \(counter) {\n\t}\n" }
        }
        out += "}\n"
        return out
    }

    func appendContents(_ out: inout String, _ sets: [NamedSet]) {
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
        out += meterElements
        let ports = Self.encryptedDNSPorts.map(String.init).joined(separator: ", ")
        // Every port-53 datagram from a socket carrying the exemption mark, whoever sent it
        // (TCP is counted per connection in the NAT chain below).
        let exemptionCount =
            dnsRedirect?.mark.map {
                "\t\tmeta l4proto udp th dport 53 socket mark \(Self.hex($0)) counter name \(Self.exemptionCounters[0])\n"
            } ?? ""
        out += """
            table inet \(table) {
            \tchain output {
            \(exemptionCount)\(meterJump)\t\tjump enforce
            \t}
            \tchain forward {
            \(meterJump)\t\tjump enforce
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
        // DNS to the daemon's own resolvers next, so no set can cut off name resolution
        // (a blocked domain sharing an address with the resolver, or 8.8.8.8 in the DoH list).
        out += "\t\tip daddr @resolvers4 meta l4proto { tcp, udp } th dport { 53, 853 } accept\n"
        out += "\t\tip6 daddr @resolvers6 meta l4proto { tcp, udp } th dport { 53, 853 } accept\n"
        if let counting {
            // Counted before the rejects, in rules of their own: a TCP connection attempt is its
            // first SYN; other protocols count every packet. The log statement's rate limit
            // spares the NFLOG reader floods, never the counters.
            let log = counting.logGroup.map { " limit rate \(Self.logRate)/second log prefix \"simplylock \" group \($0)" } ?? ""
            // Handed over, a SYN to a blocked name's address is no attempt yet (the site sharing
            // it may be allowed): the connection check reports those it refuses.
            let handedOver = connectionHandoff ? " meta mark & \(Self.hex(ConnectionCheck.present)) == 0" : ""
            for (match, family) in [("ip daddr", "4"), ("ip6 daddr", "6")] {
                for protocolMatch in ["tcp flags & (syn | ack) == syn", "meta l4proto udp"] {
                    let unlessHandedOver = protocolMatch.hasPrefix("tcp") ? handedOver : ""
                    out +=
                        "\t\t\(match) @block\(family) \(protocolMatch)\(unlessHandedOver) counter name \(match) map @attempts\(family)\(log)\n"
                    for set in (connectionHandoff ? ["named"] : []) {
                        out +=
                            "\t\t\(match) @\(set)\(family) \(protocolMatch)\(unlessHandedOver) counter name \(Self.sharedCounter)\(log)\n"
                    }
                    for set in ["shared", "blocknet"] {
                        out += "\t\t\(match) @\(set)\(family) \(protocolMatch) counter name \(Self.sharedCounter)\(log)\n"
                    }
                }
            }
        }
        // DoH endpoints first: a blocked name's address handed over below may be one too.
        for (match, set) in [("ip daddr", "doh4"), ("ip6 daddr", "doh6")] {
            out += "\t\t\(match) @\(set) meta l4proto tcp th dport { \(ports) } reject with tcp reset\n"
            out += "\t\t\(match) @\(set) meta l4proto udp th dport { \(ports) } reject with icmpx admin-prohibited\n"
        }
        if connectionHandoff {
            // Only new connections' own packets, and only while the check's tables are in
            // force (their earlier chain set the bit): replies and everything else are reset below.
            let present = Self.hex(ConnectionCheck.present)
            for (match, set) in [("ip daddr", "block4"), ("ip daddr", "named4"), ("ip6 daddr", "block6"), ("ip6 daddr", "named6")] {
                out += "\t\t\(match) @\(set) meta l4proto tcp ct direction original meta mark & \(present) == \(present) jump handoff\n"
            }
        }
        // Reject rather than drop: connects fail at once instead of hanging, and established
        // connections are matched too, so an open tab is cut off on its next packet.
        let named = connectionHandoff ? [("ip daddr", "named4"), ("ip6 daddr", "named6")] : []
        for (match, set) in [
            ("ip daddr", "block4"), ("ip daddr", "shared4"), ("ip daddr", "blocknet4"),
            ("ip6 daddr", "block6"), ("ip6 daddr", "shared6"), ("ip6 daddr", "blocknet6"),
        ] + named {
            out += "\t\t\(match) @\(set) meta l4proto tcp reject with tcp reset\n"
            out += "\t\t\(match) @\(set) reject with icmpx admin-prohibited\n"
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
        if connectionHandoff { out += handoffChain }
        out += meterChains
        if let dnsRedirect {
            out += "\tchain dnsredirect {\n"
            // The filter's own upstream queries, and DNS to this machine's own addresses (its
            // stub resolver, the filter itself), go where they were sent. The socket's mark,
            // not the packet's: another table can set a packet's mark on everyone's DNS (and
            // did, to get past the filter), while SO_MARK on a socket needs CAP_NET_ADMIN in
            // the process that owns it.
            if let mark = dnsRedirect.mark {
                // A NAT chain sees the first packet of a flow only: one count per connection,
                // as the daemon counts its connects.
                out += "\t\tmeta l4proto tcp th dport 53 socket mark \(Self.hex(mark)) counter name \(Self.exemptionCounters[1]) return\n"
                out += "\t\tsocket mark \(Self.hex(mark)) return\n"
            }
            out += "\t\tfib daddr type local return\n"
            out += "\t\tmeta l4proto { tcp, udp } th dport 53 redirect to :\(dnsRedirect.port)\n"
            out += "\t}\n"
        }
        out += "}\n"
    }

    /// TCP to a blocked name's address, with the connection check in force: the check's verdict
    /// in the connection mark decides (only an allowed name passes; refused, or let go without a
    /// name before the address was a blocked name's, is reset); without one, the packet goes on
    /// marked `needsName`, which the check's tables queue without `bypass`. Connections never
    /// judged within its window (open before the block, or never queued) are reset as before.
    /// The check reads from the second packet on: a SYN asking for TCP Fast Open (option 34, or
    /// 254 as experimental) could carry data past it, and is reset (servers deliver SYN data
    /// only with such an option).
    var handoffChain: String {
        let mask = Self.hex(ConnectionCheck.mask)
        return """
            \tchain handoff {
            \t\tct mark & \(mask) == \(Self.hex(ConnectionCheck.allowed)) accept
            \t\tct mark & \(mask) != 0 reject with tcp reset
            \t\tct original packets > \(ConnectionCheck.queuedPackets.upperBound) reject with tcp reset
            \t\ttcp flags & (syn | ack) == syn tcp option fastopen exists reject with tcp reset
            \t\ttcp flags & (syn | ack) == syn tcp option 254 exists reject with tcp reset
            \t\tmeta mark set meta mark | \(Self.hex(ConnectionCheck.needsName)) accept
            \t}

            """
    }

    /// The counters of port-53 traffic carrying the exemption mark: UDP datagrams, TCP connections.
    static let exemptionCounters = ["exemptudp", "exempttcp"]

    static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }

    /// A double-quoted nft string; nft has no escapes, so quotes and backslashes are dropped.
    static func quoted(_ text: String) -> String {
        "\"" + text.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline } + "\""
    }
}
