/// One packet the kernel queued to the daemon (NFQUEUE): a TCP segment of a connection whose
/// name has not been judged yet, read from its IPv4 or IPv6 header.
struct QueuedPacket: Equatable {
    /// The connection, as the client sees it.
    struct Flow: Hashable {
        var source: [UInt8]
        var destination: [UInt8]
        var sourcePort: UInt16
        var destinationPort: UInt16
    }

    var flow: Flow
    var acknowledgement: UInt32
    var flags: UInt8
    var payload: ArraySlice<UInt8>

    /// Reads an IP packet carrying TCP; nil for anything else (extension headers included:
    /// such a packet passes unjudged, as every packet does when the daemon is gone).
    init?(ipPacket bytes: ArraySlice<UInt8>) {
        guard let first = bytes.first else { return nil }
        let start = bytes.startIndex
        var tcp: Int
        var end: Int
        switch first >> 4 {
        case 4:
            let headerLength = Int(first & 0x0f) * 4
            guard bytes.count >= 20, headerLength >= 20, bytes[start + 9] == 6 else { return nil }
            let total = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
            flow = Flow(
                source: Array(bytes[(start + 12)..<(start + 16)]), destination: Array(bytes[(start + 16)..<(start + 20)]),
                sourcePort: 0, destinationPort: 0)
            tcp = start + headerLength
            end = min(bytes.endIndex, start + total)
        case 6:
            guard bytes.count >= 40, bytes[start + 6] == 6 else { return nil }
            let payloadLength = Int(bytes[start + 4]) << 8 | Int(bytes[start + 5])
            flow = Flow(
                source: Array(bytes[(start + 8)..<(start + 24)]), destination: Array(bytes[(start + 24)..<(start + 40)]),
                sourcePort: 0, destinationPort: 0)
            tcp = start + 40
            end = min(bytes.endIndex, tcp + payloadLength)
        default:
            return nil
        }
        guard tcp + 20 <= end else { return nil }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        flow.sourcePort = u16(tcp)
        flow.destinationPort = u16(tcp + 2)
        acknowledgement = UInt32(u16(tcp + 8)) << 16 | UInt32(u16(tcp + 10))
        let dataOffset = Int(bytes[tcp + 12] >> 4) * 4
        flags = bytes[tcp + 13]
        guard dataOffset >= 20, tcp + dataOffset <= end else { return nil }
        payload = bytes[(tcp + dataOffset)..<end]
    }
}
