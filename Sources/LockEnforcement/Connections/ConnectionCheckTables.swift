import CNFTables

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The connection check's own nftables tables, `ip simplylock_queue` and `ip6 simplylock_queue`,
/// written with libnftnl and committed in one netlink batch.
///
/// The queue rule uses the xtables NFQUEUE target through nft_compat (`xt_NFQUEUE`): kernels
/// built without nft_queue (this project's CI machine) still have it, and Debian's stock kernel
/// has both as modules, so one path runs everywhere and is the one tested. nft(8) and
/// libnftables cannot write an xt target, hence libnftnl; nft_compat refuses the `inet` family,
/// hence one table per family. Every other expression is native.
///
/// A verdict cannot set the connection's mark from user space here (that needs
/// CONFIG_NETFILTER_NETLINK_GLUE_CT, which this kernel lacks), so the daemon answers with
/// `NF_REPEAT` and a *packet* mark instead; the chain runs again from its start, copies the
/// packet mark's bits into the connection mark, clears them from the packet, and then accepts
/// (allowed) or resets (refused). Connections with a mark are never queued again.
///
/// Chains at priority `filter + 10`, after the main `simplylock` table's (`filter`): what it
/// rejects never reaches the queue. An `accept` there does not end the packet's way through
/// other tables, so the main table's exemption that matters here (loopback traffic, the
/// machine's own services) is restated; the daemon itself makes no TLS or HTTP connections.
///
/// A chain at `filter - 5`, before the main table, tells it that these tables are in force
/// (`ConnectionCheck.present` in the packet mark): only then does the main table hand TCP to a
/// blocked name's address over to the check (`ConnectionCheck.needsName`) instead of resetting
/// it, so a site sharing that address keeps working while the check reads names, and the
/// address is refused outright again as soon as these tables are gone. Handed-over packets are
/// queued without `bypass`: with nobody reading the queue they are dropped, not let through.
enum ConnectionCheckTables {
    static let name = "simplylock_queue"
    static let priority: Int32 = 10

    /// Puts the tables for `check` in force, replacing any earlier ones in the same transaction
    /// (add, delete, add: the delete cannot fail, and a packet sees the old or the new tables).
    ///
    /// With `checkOnly` the batch goes without its end: the kernel checks every message, then
    /// aborts the transaction, so nothing changes.
    static func apply(_ check: ConnectionCheck, checkOnly: Bool = false) throws(NFTablesError) {
        let batch = Batch()
        for family in Family.allCases {
            batch.table(family, NFT_MSG_NEWTABLE)
            batch.table(family, NFT_MSG_DELTABLE)
            batch.table(family, NFT_MSG_NEWTABLE)
            for hook in Hook.allCases {
                for chain in [Chain(hook: hook, stage: .present), Chain(hook: hook, stage: .check)] {
                    batch.chain(family, chain)
                    for rule in rules(check, family: family, chain: chain) { batch.rule(family, chain, rule) }
                }
            }
        }
        try batch.commit(checkOnly: checkOnly)
    }

    /// Removes both tables if present, in one transaction.
    static func remove() throws(NFTablesError) {
        let batch = Batch()
        for family in Family.allCases {
            batch.table(family, NFT_MSG_NEWTABLE)
            batch.table(family, NFT_MSG_DELTABLE)
        }
        try batch.commit()
    }

    enum Family: CaseIterable {
        case ipv4, ipv6
        /// NFPROTO_IPV4, NFPROTO_IPV6 (linux/netfilter.h, whose linux/in.h clashes with Glibc's).
        var number: UInt16 { self == .ipv4 ? 2 : 10 }
        /// "Administratively prohibited", as `reject with icmpx admin-prohibited` sends.
        var prohibited: UInt8 { self == .ipv4 ? 13 : 1 }
    }

    enum Hook: String, CaseIterable {
        case output, forward
        /// NF_INET_LOCAL_OUT, NF_INET_FORWARD.
        var number: UInt32 { self == .output ? 3 : 2 }
    }

    /// One base chain: which hook, and whether it marks packets before the main table or
    /// checks them after it.
    struct Chain: Equatable {
        enum Stage { case present, check }
        var hook: Hook
        var stage: Stage
        var name: String { stage == .check ? hook.rawValue : "present_\(hook.rawValue)" }
        var priority: Int32 { stage == .check ? ConnectionCheckTables.priority : ConnectionCheck.presentPriority }
    }

    /// The rules of one chain, in order.
    static func rules(_ check: ConnectionCheck, family: Family, chain: Chain) -> [[Expression]] {
        let hook = chain.hook
        var loopback = [UInt8](repeating: 0, count: 16)
        loopback.replaceSubrange(0..<2, with: Array("lo".utf8))
        let tcp: [Expression] = [.metaLoad(NFT_META_L4PROTO), .equal([UInt8(IPPROTO_TCP)])]
        guard chain.stage == .check else {
            let local: [Expression] = hook == .output ? [.metaLoad(NFT_META_OIFNAME), .compare(NFT_CMP_NEQ, loopback)] : []
            return [
                tcp + local + [
                    .metaLoad(NFT_META_MARK), .and(~ConnectionCheck.present, xor: ConnectionCheck.present), .metaSet(NFT_META_MARK),
                ]
            ]
        }
        let mask = ConnectionCheck.mask
        // Whatever way a packet leaves this chain, it leaves without the check's bits: another
        // table's routing or mark rules later on never see them.
        let clear: [Expression] = [.metaLoad(NFT_META_MARK), .and(~ConnectionCheck.packetBits, xor: 0), .metaSet(NFT_META_MARK)]
        var rules: [[Expression]] = []
        // The daemon's answer, handed back with NF_REPEAT, becomes the connection's mark.
        for (bits, verdict) in [
            (ConnectionCheck.refused, [Expression]()), (ConnectionCheck.allowed, [.accept]), (ConnectionCheck.unnamed, [.accept]),
        ] {
            rules.append(
                [.metaLoad(NFT_META_MARK), .and(mask, xor: 0), .equal(host32(bits))]
                    + [.ctLoad(NFT_CT_MARK), .and(~mask, xor: bits), .ctSet(NFT_CT_MARK)] + clear + verdict)
        }
        // A refused connection is reset on every packet the client sends. Not the reset itself:
        // it belongs to the same connection (in the reply direction), and a reset of a reset
        // is a drop, which would leave the client waiting instead of refused.
        rules.append(
            [.metaLoad(NFT_META_L4PROTO), .equal([UInt8(IPPROTO_TCP)]), .ctDirectionOriginal, .equal([0])]
                + [.ctLoad(NFT_CT_MARK), .and(mask, xor: 0), .equal(host32(ConnectionCheck.refused)), .counter, .resetTCP])
        if hook == .output {
            rules.append([.metaLoad(NFT_META_OIFNAME), .equal(loopback), .accept])
        }
        // HTTP/3 hides the name from a single packet: refused, so browsers use TCP.
        rules.append(
            [.metaLoad(NFT_META_L4PROTO), .equal([UInt8(IPPROTO_UDP)]), .transportPort, .equal([0x01, 0xbb])]
                + [.counter, .rejectICMP(family.prohibited)])
        let unjudged: [Expression] =
            [.metaLoad(NFT_META_L4PROTO), .equal([UInt8(IPPROTO_TCP)]), .ctDirectionOriginal, .equal([0])]
            + [.ctLoad(NFT_CT_MARK), .and(mask, xor: 0), .equal(host32(0))]
        // The handshake's last packet, when it carries no data, passes in the kernel: a round trip
        // to the daemon less per connection. Only the exact lengths of an empty segment (IP header
        // without options, or IPv6 without extension headers; TCP with timestamps or without), so
        // that a byte of data piggybacked on it still goes to the daemon.
        for (tcpHeader, dataOffset) in [(32, UInt8(0x80)), (20, UInt8(0x50))] {
            let plainIP: [Expression] =
                family == .ipv4
                ? [.load(NFT_PAYLOAD_NETWORK_HEADER, offset: 0, length: 1), .mask([0x0f]), .equal([0x05])]
                : [.load(NFT_PAYLOAD_NETWORK_HEADER, offset: 6, length: 1), .equal([UInt8(IPPROTO_TCP)])]
            rules.append(
                unjudged + [.ctOriginalPackets, .equal(withUnsafeBytes(of: UInt64(2)) { Array($0) })] + plainIP
                    + [.load(NFT_PAYLOAD_TRANSPORT_HEADER, offset: 12, length: 1), .mask([0xf0]), .equal([dataOffset])]
                    + [.metaLoad(NFT_META_LEN), .equal(host32(UInt32((family == .ipv4 ? 20 : 40) + tcpHeader)))] + clear + [.accept])
        }
        func window(_ packets: ClosedRange<Int>) -> [Expression] {
            [.ctOriginalPackets, .hostToNetwork64, .compare(NFT_CMP_GTE, big64(packets.lowerBound))]
                + [.compare(NFT_CMP_LTE, big64(packets.upperBound))]
        }
        // Handed over by the main table: without bypass, so that a queue nobody reads drops them.
        // The daemon reads the bit from the queued packet's mark and clears it in its verdict.
        rules.append(
            unjudged + [.metaLoad(NFT_META_MARK), .and(ConnectionCheck.needsName, xor: 0), .equal(host32(ConnectionCheck.needsName))]
                + window(ConnectionCheck.queuedPackets) + [.counter, .queue(check.queue, bypass: false)])
        rules.append(unjudged + window(ConnectionCheck.queuedPackets) + [.counter, .queue(check.queue, bypass: true)])
        rules.append([.metaLoad(NFT_META_MARK), .and(ConnectionCheck.packetBits, xor: 0), .compare(NFT_CMP_NEQ, host32(0))] + clear)
        return rules
    }

    /// One expression of a rule, as libnftnl builds it; values are registers' bytes.
    enum Expression {
        case metaLoad(nft_meta_keys)
        case metaSet(nft_meta_keys)
        case ctLoad(nft_ct_keys)
        case ctSet(nft_ct_keys)
        case ctDirectionOriginal
        case ctOriginalPackets
        case and(UInt32, xor: UInt32)
        case equal([UInt8])
        case compare(nft_cmp_ops, [UInt8])
        case hostToNetwork64
        /// `length` bytes of a header into the register.
        case load(nft_payload_bases, offset: UInt32, length: UInt32)
        /// The register's first bytes ANDed with `mask` (as many bytes).
        case mask([UInt8])
        case transportPort
        case counter
        case accept
        case resetTCP
        case rejectICMP(UInt8)
        /// xt NFQUEUE revision 3: one queue; with `bypass`, a queue nobody reads lets packets
        /// through, without it drops them.
        case queue(UInt16, bypass: Bool)
    }

    private static func host32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    private static func big64(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) } }
}
