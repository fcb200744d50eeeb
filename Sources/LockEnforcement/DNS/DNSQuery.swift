/// A query as the forwarder receives it from a client, read straight from the packet without
/// allocating, and the answers the forwarder makes up itself (blocked names, errors).
///
/// The question is kept as bytes of the original packet (answers echo it exactly, in the
/// client's letter case); the name is also written in canonical form (lowercase, dots between
/// labels, no trailing dot) into a buffer the caller provides, for matching against the policy.
struct DNSQuery: Sendable, Equatable {
    /// The EDNS0 OPT record of a query (RFC 6891).
    struct EDNS: Sendable, Equatable {
        /// The UDP payload size the client can receive.
        var payloadSize: UInt16
        /// EDNS version; only 0 exists.
        var version: UInt8
        /// The DNSSEC OK bit.
        var dnssecOK: Bool
        /// Offset of the payload size field in the packet, to cap it when forwarding.
        var payloadSizeOffset: Int
    }

    /// What to do with a packet.
    enum Parsed: Sendable, Equatable {
        /// A well-formed standard query.
        case query(DNSQuery)
        /// Answer with this (FORMERR or NOTIMP) without looking further.
        case reply([UInt8])
        /// Not worth an answer: too short to carry an ID, or a response rather than a query.
        case ignore
    }

    var id: UInt16
    var flags: UInt16
    /// Offset just after the question's QCLASS.
    var questionEnd: Int
    var type: UInt16
    var questionClass: UInt16
    /// Length of the canonical name written to the caller's buffer (0 for the root).
    var nameLength: Int
    var edns: EDNS?

    /// Record types the forwarder answers with an address.
    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28
    static let typeOPT: UInt16 = 41

    /// The UDP payload size advertised in our own OPT records (the 2020 DNS flag day value).
    static let ednsPayloadSize: UInt16 = DNSMessage.ednsPayloadSize

    /// Largest answer the client accepts over UDP.
    var udpLimit: Int { max(512, Int(edns?.payloadSize ?? 512)) }

    /// Reads `packet`; the canonical name goes to `name`, which must hold at least 255 bytes.
    static func parse(_ packet: UnsafeRawBufferPointer, name: UnsafeMutableRawBufferPointer) -> Parsed {
        guard packet.count >= 12 else { return .ignore }
        let id = read16(packet, 0)
        let flags = read16(packet, 2)
        guard flags & 0x8000 == 0 else { return .ignore }  // a response: never answer one (loops, reflection)
        let opcode = (flags >> 11) & 0xf
        guard opcode == 0 else { return .reply(headerOnly(id: id, flags: flags, rcode: 4)) }
        let formatError = Parsed.reply(headerOnly(id: id, flags: flags, rcode: 1))
        guard read16(packet, 4) == 1 else { return formatError }
        let answers = Int(read16(packet, 6)) + Int(read16(packet, 8))
        let additional = Int(read16(packet, 10))

        // The question name: plain labels only (a compression pointer has nothing to point
        // back to in the first name of a message).
        var position = 12
        var length = 0
        while true {
            guard position < packet.count else { return formatError }
            let count = Int(packet[position])
            position += 1
            if count == 0 { break }
            guard count < 64, position + count <= packet.count else { return formatError }
            if length > 0 {
                guard length < 255 else { return formatError }
                name[length] = UInt8(ascii: ".")
                length += 1
            }
            guard length + count <= 254 else { return formatError }
            for offset in 0..<count {
                var byte = packet[position + offset]
                if byte &- 0x41 < 26 { byte |= 0x20 }
                // A dot inside a label is not a separator; it must never line up with a rule.
                if byte == UInt8(ascii: ".") { byte = 0 }
                name[length + offset] = byte
            }
            length += count
            position += count
        }
        guard position + 4 <= packet.count else { return formatError }
        let type = read16(packet, position)
        let questionClass = read16(packet, position + 2)
        let questionEnd = position + 4
        position = questionEnd

        for _ in 0..<answers {
            guard let next = skipRecord(packet, position) else { return formatError }
            position = next
        }
        var edns: EDNS?
        for _ in 0..<additional {
            let start = position
            guard let next = skipRecord(packet, position) else { return formatError }
            if packet[start] == 0, read16(packet, start + 1) == typeOPT {
                guard edns == nil else { return formatError }  // at most one OPT (RFC 6891 6.1.1)
                edns = EDNS(
                    payloadSize: read16(packet, start + 3), version: packet[start + 6],
                    dnssecOK: packet[start + 7] & 0x80 != 0, payloadSizeOffset: start + 3)
            }
            position = next
        }
        return .query(
            DNSQuery(
                id: id, flags: flags, questionEnd: questionEnd, type: type, questionClass: questionClass,
                nameLength: length, edns: edns))
    }

    /// The answer for a blocked name: `A` → 0.0.0.0, `AAAA` → ::, anything else (HTTPS, SVCB,
    /// CNAME, MX, TXT, …) an empty NOERROR answer; the question echoed; an OPT record when the
    /// query had one (BADVERS for an EDNS version other than 0).
    func blockedResponse(_ packet: UnsafeRawBufferPointer, ttl: UInt32) -> [UInt8] {
        if let edns, edns.version != 0 { return response(packet, rcode: 16) }
        var data: [UInt8] = []
        if questionClass == 1 && type == Self.typeA { data = [0, 0, 0, 0] }
        if questionClass == 1 && type == Self.typeAAAA { data = [UInt8](repeating: 0, count: 16) }
        return response(packet, rcode: 0, answer: data.isEmpty ? nil : (type, ttl, data))
    }

    /// An answer without records, e.g. SERVFAIL when no upstream server answered.
    func response(_ packet: UnsafeRawBufferPointer, rcode: UInt16, answer: (type: UInt16, ttl: UInt32, data: [UInt8])? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(questionEnd + 32)
        // QR, opcode 0, RD and CD as asked, RA: we recurse on the client's behalf.
        let responseFlags: UInt16 = 0x8000 | (flags & 0x0100) | 0x0080 | (flags & 0x0010) | (rcode & 0xf)
        Self.append16(&bytes, id)
        Self.append16(&bytes, responseFlags)
        Self.append16(&bytes, 1)
        Self.append16(&bytes, answer == nil ? 0 : 1)
        Self.append16(&bytes, 0)
        Self.append16(&bytes, edns == nil ? 0 : 1)
        bytes.append(contentsOf: packet[12..<questionEnd])
        if let answer {
            bytes += [0xC0, 0x0C]  // the question's name
            Self.append16(&bytes, answer.type)
            Self.append16(&bytes, 1)
            Self.append16(&bytes, UInt16(answer.ttl >> 16))
            Self.append16(&bytes, UInt16(answer.ttl & 0xffff))
            Self.append16(&bytes, UInt16(answer.data.count))
            bytes += answer.data
        }
        if let edns {
            bytes.append(0)
            Self.append16(&bytes, Self.typeOPT)
            Self.append16(&bytes, Self.ednsPayloadSize)
            bytes.append(UInt8(rcode >> 4))  // extended RCODE
            bytes.append(0)  // version
            Self.append16(&bytes, edns.dnssecOK ? 0x8000 : 0)
            Self.append16(&bytes, 0)
        }
        return bytes
    }

    /// A header-only answer (FORMERR, NOTIMP) for a packet whose question cannot be used.
    static func headerOnly(id: UInt16, flags: UInt16, rcode: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        append16(&bytes, id)
        append16(&bytes, 0x8000 | (flags & 0x7900) | 0x0080 | (rcode & 0xf))
        bytes += [UInt8](repeating: 0, count: 8)
        return bytes
    }

    /// True when `response` carries the same question as `query` (letter case aside): an
    /// upstream answer is only ever passed on for the question that was asked.
    static func sameQuestion(_ response: UnsafeRawBufferPointer, _ query: UnsafeRawBufferPointer, questionEnd: Int) -> Bool {
        guard response.count >= questionEnd, query.count >= questionEnd, read16(response, 4) == 1 else { return false }
        for offset in 12..<questionEnd {
            var a = response[offset]
            var b = query[offset]
            if a &- 0x41 < 26 { a |= 0x20 }
            if b &- 0x41 < 26 { b |= 0x20 }
            guard a == b else { return false }
        }
        return true
    }

    /// The offset after a resource record (owner name, type, class, TTL, RDATA), or nil.
    private static func skipRecord(_ packet: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var position = start
        while true {
            guard position < packet.count else { return nil }
            let byte = packet[position]
            if byte & 0xC0 == 0xC0 {
                position += 2
                break
            }
            guard byte & 0xC0 == 0 else { return nil }
            position += 1 + Int(byte)
            if byte == 0 { break }
        }
        guard position + 10 <= packet.count else { return nil }
        let end = position + 10 + Int(read16(packet, position + 8))
        return end <= packet.count ? end : nil
    }

    @inline(__always)
    static func read16(_ packet: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(packet[offset]) << 8 | UInt16(packet[offset + 1])
    }

    private static func append16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xff))
    }
}
