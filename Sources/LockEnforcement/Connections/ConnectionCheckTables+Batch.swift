import CNFTNL
import CNFTables

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension ConnectionCheckTables {
    /// One nf_tables transaction: messages built by libnftnl between a batch's begin and end,
    /// sent in one `sendmsg`. The kernel handles a whole batch inside that call, so
    /// its answers (an error for each refused message) are all waiting once it returns.
    final class Batch {
        private var buffer = [UInt8](repeating: 0, count: 1 << 16)
        private var length = 0
        private var sequence = UInt32(truncatingIfNeeded: time(nil))

        init() { message { buffer, sequence in _ = nftnl_batch_begin(buffer, sequence) } }

        /// Builds one message at the end of the batch (libnftnl keeps its length aligned).
        private func message(_ build: (UnsafeMutablePointer<CChar>, UInt32) -> Void) {
            buffer.withUnsafeMutableBytes { bytes in
                let start = bytes.baseAddress!.advanced(by: length)
                build(start.assumingMemoryBound(to: CChar.self), sequence)
                length += Int(start.assumingMemoryBound(to: nlmsghdr.self).pointee.nlmsg_len + 3) & ~3
            }
            sequence &+= 1
        }

        private func header(_ buffer: UnsafeMutablePointer<CChar>, _ type: nf_tables_msg_types, _ family: Family, _ sequence: UInt32)
            -> UnsafeMutablePointer<nlmsghdr>
        {
            // Rules go after the chain's earlier rules (without APPEND, before them).
            let flags =
                switch type {
                case NFT_MSG_DELTABLE: NLM_F_ACK
                case NFT_MSG_NEWRULE: NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK
                default: NLM_F_CREATE | NLM_F_ACK
                }
            return nftnl_nlmsg_build_hdr(buffer, UInt16(type.rawValue), family.number, UInt16(flags), sequence)
        }

        func table(_ family: Family, _ type: nf_tables_msg_types) {
            let table = nftnl_table_alloc()
            defer { nftnl_table_free(table) }
            nftnl_table_set_u32(table, UInt16(NFTNL_TABLE_FAMILY.rawValue), UInt32(family.number))
            _ = nftnl_table_set_str(table, UInt16(NFTNL_TABLE_NAME.rawValue), ConnectionCheckTables.name)
            message { buffer, sequence in nftnl_table_nlmsg_build_payload(header(buffer, type, family, sequence), table) }
        }

        func chain(_ family: Family, _ base: Chain) {
            let chain = nftnl_chain_alloc()
            defer { nftnl_chain_free(chain) }
            _ = nftnl_chain_set_str(chain, UInt16(NFTNL_CHAIN_TABLE.rawValue), ConnectionCheckTables.name)
            _ = nftnl_chain_set_str(chain, UInt16(NFTNL_CHAIN_NAME.rawValue), base.name)
            _ = nftnl_chain_set_str(chain, UInt16(NFTNL_CHAIN_TYPE.rawValue), "filter")
            nftnl_chain_set_u32(chain, UInt16(NFTNL_CHAIN_HOOKNUM.rawValue), base.hook.number)
            nftnl_chain_set_s32(chain, UInt16(NFTNL_CHAIN_PRIO.rawValue), base.priority)
            nftnl_chain_set_u32(chain, UInt16(NFTNL_CHAIN_POLICY.rawValue), 1 /* NF_ACCEPT */)
            message { buffer, sequence in nftnl_chain_nlmsg_build_payload(header(buffer, NFT_MSG_NEWCHAIN, family, sequence), chain) }
        }

        func rule(_ family: Family, _ chain: Chain, _ expressions: [Expression]) {
            let rule = nftnl_rule_alloc()
            defer { nftnl_rule_free(rule) }
            nftnl_rule_set_u32(rule, UInt16(NFTNL_RULE_FAMILY.rawValue), UInt32(family.number))
            _ = nftnl_rule_set_str(rule, UInt16(NFTNL_RULE_TABLE.rawValue), ConnectionCheckTables.name)
            _ = nftnl_rule_set_str(rule, UInt16(NFTNL_RULE_CHAIN.rawValue), chain.name)
            // The rule owns its expressions from here on.
            for expression in expressions { nftnl_rule_add_expr(rule, Self.build(expression)) }
            message { buffer, sequence in nftnl_rule_nlmsg_build_payload(header(buffer, NFT_MSG_NEWRULE, family, sequence), rule) }
        }

        /// Sends the batch in one `sendmsg`; throws the kernel's first refusal (nothing of the
        /// batch is then in force). The kernel handles a whole batch inside that call, so its
        /// answers (an error for each refused message) are all waiting once it returns.
        ///
        /// With `checkOnly` the batch goes without its end: the kernel checks every message,
        /// then aborts the transaction.
        func commit(checkOnly: Bool = false) throws(NFTablesError) {
            if !checkOnly { message { buffer, sequence in _ = nftnl_batch_end(buffer, sequence) } }
            let socket: NetfilterSocket
            do throws(NetfilterSocket.Failure) {
                socket = try NetfilterSocket(bound: false, timeout: timeval(tv_sec: 2, tv_usec: 0))
            } catch {
                throw NFTablesError(message: "cannot open a netfilter socket: \(error)")
            }
            var kernel = sockaddr_nl()
            kernel.nl_family = sa_family_t(AF_NETLINK)
            let sent = buffer.withUnsafeBytes { bytes in
                withUnsafePointer(to: &kernel) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(socket.fd, bytes.baseAddress, length, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
            guard sent == length else { throw Self.failure("cannot send the connection check's tables") }
            var reply = [UInt8](repeating: 0, count: 8192)
            var refusal: Int32?
            while true {
                let count = reply.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard count > 0 else { break }
                for message in NetlinkMessages(bytes: reply[0..<count]) where message.type == UInt16(NLMSG_ERROR) {
                    let code = message.payload.count >= 4 ? message.payload.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } : 0
                    if code != 0, refusal == nil { refusal = -code }
                }
            }
            if let refusal {
                throw NFTablesError(message: "the kernel refused the connection check's tables: \(String(cString: strerror(refusal)))")
            }
        }

        private static func failure(_ what: String) -> NFTablesError {
            NFTablesError(message: "\(what): \(String(cString: strerror(errno)))")
        }

        private static func build(_ expression: Expression) -> OpaquePointer {
            let register = UInt32(NFT_REG_1.rawValue)
            func make(_ name: String, _ set: (OpaquePointer) -> Void) -> OpaquePointer {
                let made = nftnl_expr_alloc(name)!
                set(made)
                return made
            }
            func u32(_ made: OpaquePointer, _ attribute: Int, _ value: UInt32) { nftnl_expr_set_u32(made, UInt16(attribute), value) }
            func bytes(_ made: OpaquePointer, _ attribute: Int, _ value: [UInt8]) {
                _ = value.withUnsafeBytes { nftnl_expr_set(made, UInt16(attribute), $0.baseAddress, UInt32($0.count)) }
            }
            switch expression {
            case .metaLoad(let key), .metaSet(let key):
                return make("meta") {
                    u32($0, NFTNL_EXPR_META_KEY, key.rawValue)
                    if case .metaSet = expression {
                        u32($0, NFTNL_EXPR_META_SREG, register)
                    } else {
                        u32($0, NFTNL_EXPR_META_DREG, register)
                    }
                }
            case .ctLoad(let key), .ctSet(let key):
                return make("ct") {
                    u32($0, NFTNL_EXPR_CT_KEY, key.rawValue)
                    if case .ctSet = expression { u32($0, NFTNL_EXPR_CT_SREG, register) } else { u32($0, NFTNL_EXPR_CT_DREG, register) }
                }
            case .ctDirectionOriginal, .ctOriginalPackets:
                return make("ct") {
                    u32($0, NFTNL_EXPR_CT_DREG, register)
                    if case .ctDirectionOriginal = expression {
                        u32($0, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION.rawValue)
                    } else {
                        u32($0, NFTNL_EXPR_CT_KEY, NFT_CT_PKTS.rawValue)
                        nftnl_expr_set_u8($0, UInt16(NFTNL_EXPR_CT_DIR), 0 /* IP_CT_DIR_ORIGINAL */)
                    }
                }
            case .and(let mask, let xor):
                return make("bitwise") {
                    u32($0, NFTNL_EXPR_BITWISE_SREG, register)
                    u32($0, NFTNL_EXPR_BITWISE_DREG, register)
                    u32($0, NFTNL_EXPR_BITWISE_LEN, 4)
                    bytes($0, NFTNL_EXPR_BITWISE_MASK, withUnsafeBytes(of: mask) { Array($0) })
                    bytes($0, NFTNL_EXPR_BITWISE_XOR, withUnsafeBytes(of: xor) { Array($0) })
                }
            case .equal(let value):
                return build(.compare(NFT_CMP_EQ, value))
            case .compare(let operation, let value):
                return make("cmp") {
                    u32($0, NFTNL_EXPR_CMP_SREG, register)
                    u32($0, NFTNL_EXPR_CMP_OP, operation.rawValue)
                    bytes($0, NFTNL_EXPR_CMP_DATA, value)
                }
            case .hostToNetwork64:
                // nft_cmp orders bytes as memcmp does: the 64-bit counter must be big-endian first.
                return make("byteorder") {
                    u32($0, NFTNL_EXPR_BYTEORDER_SREG, register)
                    u32($0, NFTNL_EXPR_BYTEORDER_DREG, register)
                    u32($0, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON.rawValue)
                    u32($0, NFTNL_EXPR_BYTEORDER_LEN, 8)
                    u32($0, NFTNL_EXPR_BYTEORDER_SIZE, 8)
                }
            case .load(let base, let offset, let length):
                return make("payload") {
                    u32($0, NFTNL_EXPR_PAYLOAD_DREG, register)
                    u32($0, NFTNL_EXPR_PAYLOAD_BASE, base.rawValue)
                    u32($0, NFTNL_EXPR_PAYLOAD_OFFSET, offset)
                    u32($0, NFTNL_EXPR_PAYLOAD_LEN, length)
                }
            case .mask(let mask):
                return make("bitwise") {
                    u32($0, NFTNL_EXPR_BITWISE_SREG, register)
                    u32($0, NFTNL_EXPR_BITWISE_DREG, register)
                    u32($0, NFTNL_EXPR_BITWISE_LEN, UInt32(mask.count))
                    bytes($0, NFTNL_EXPR_BITWISE_MASK, mask)
                    bytes($0, NFTNL_EXPR_BITWISE_XOR, [UInt8](repeating: 0, count: mask.count))
                }
            case .transportPort:
                return make("payload") {
                    u32($0, NFTNL_EXPR_PAYLOAD_DREG, register)
                    u32($0, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_TRANSPORT_HEADER.rawValue)
                    u32($0, NFTNL_EXPR_PAYLOAD_OFFSET, 2)
                    u32($0, NFTNL_EXPR_PAYLOAD_LEN, 2)
                }
            case .counter:
                return make("counter") { _ in }
            case .accept:
                return make("immediate") {
                    u32($0, NFTNL_EXPR_IMM_DREG, UInt32(NFT_REG_VERDICT.rawValue))
                    u32($0, NFTNL_EXPR_IMM_VERDICT, 1 /* NF_ACCEPT */)
                }
            case .resetTCP:
                return make("reject") {
                    u32($0, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_TCP_RST.rawValue)
                    nftnl_expr_set_u8($0, UInt16(NFTNL_EXPR_REJECT_CODE), 0)
                }
            case .rejectICMP(let code):
                return make("reject") {
                    u32($0, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMP_UNREACH.rawValue)
                    nftnl_expr_set_u8($0, UInt16(NFTNL_EXPR_REJECT_CODE), code)
                }
            case .queue(let queue, let bypass):
                // struct xt_NFQ_info_v3 { u16 queuenum; u16 queues_total; u16 flags; }, in host
                // order, padded to XT_ALIGN; flag 1 is NFQ_FLAG_BYPASS.
                var info = [UInt8](repeating: 0, count: 8)
                for (index, field) in [queue, 1, bypass ? 1 : 0].enumerated() {
                    withUnsafeBytes(of: field) { info.replaceSubrange((index * 2)..<(index * 2 + 2), with: $0) }
                }
                // libnftnl keeps (and later frees) the info's pointer rather than a copy.
                let copy = malloc(info.count)!
                info.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return make("target") {
                    _ = nftnl_expr_set_str($0, UInt16(NFTNL_EXPR_TG_NAME), "NFQUEUE")
                    u32($0, NFTNL_EXPR_TG_REV, 3)
                    _ = nftnl_expr_set($0, UInt16(NFTNL_EXPR_TG_INFO), copy, UInt32(info.count))
                }
            }
        }
    }
}
