/// The netlink messages in one received buffer (netlink(7) framing), with the nfnetlink header
/// and top-level attributes decoded on demand.
struct NetlinkMessages: Sequence {
    /// One message.
    struct Message {
        var type: UInt16
        var flags: UInt16
        var sequence: UInt32
        var portID: UInt32
        /// Everything after the 16-byte netlink header.
        var payload: ArraySlice<UInt8>

        /// The nfnetlink subsystem (high byte of the type).
        var subsystem: UInt8 { UInt8(type >> 8) }
        /// The message type within the subsystem (low byte), e.g. `NFT_MSG_NEWGEN`.
        var nftablesType: UInt32 { UInt32(type & 0xff) }
        /// The protocol family from the nfgenmsg header (`NFPROTO_INET` is 1).
        var family: UInt8? { payload.first }

        /// The value of the first top-level attribute of `type` after the nfgenmsg header.
        func attribute(_ wanted: UInt16) -> ArraySlice<UInt8>? {
            var offset = payload.startIndex + 4
            while offset + 4 <= payload.endIndex {
                // Netlink headers are in host byte order; attribute values of nf_tables are not.
                let length = Int(NetlinkMessages.native16(payload, offset))
                let type = NetlinkMessages.native16(payload, offset + 2) & 0x3fff
                guard length >= 4, offset + length <= payload.endIndex else { return nil }
                if type == wanted { return payload[(offset + 4)..<(offset + length)] }
                offset += (length + 3) & ~3
            }
            return nil
        }
    }

    let bytes: ArraySlice<UInt8>

    static func native16(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt16 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at - bytes.startIndex, as: UInt16.self) }
    }

    func makeIterator() -> AnyIterator<Message> {
        var offset = bytes.startIndex
        let bytes = self.bytes
        func u16(_ at: Int) -> UInt16 { Self.native16(bytes, at) }
        func u32(_ at: Int) -> UInt32 {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at - bytes.startIndex, as: UInt32.self) }
        }
        return AnyIterator {
            guard offset + 16 <= bytes.endIndex else { return nil }
            let length = Int(u32(offset))
            guard length >= 16, offset + length <= bytes.endIndex else { return nil }
            let message = Message(
                type: u16(offset + 4), flags: u16(offset + 6), sequence: u32(offset + 8),
                portID: u32(offset + 12), payload: bytes[(offset + 16)..<(offset + length)])
            offset += (length + 3) & ~3
            return message
        }
    }
}
