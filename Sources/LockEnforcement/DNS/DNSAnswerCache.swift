/// Upstream answers kept for as long as their TTL allows, so that a repeated query is answered
/// without a round trip (the stub resolvers desktops run, NetworkManager's dnsmasq among them,
/// keep no cache of their own).
///
/// Keys are the question as asked (name in lowercase, type, class), the EDNS, DNSSEC and AD
/// bits that shape an answer, and the server it was asked of (a query redirected to its
/// original destination is not answered with another server's answer). A served answer carries
/// its asker's ID, letter case and RD bit (RFC 1035 copies RD from the query), not the first
/// asker's. The forwarder empties the cache when its upstream servers change. Positive answers live for their
/// smallest TTL, negative ones (NXDOMAIN, NODATA) for their SOA's TTL bound (RFC 2308 5), each
/// at most `maxTTL`; served answers carry their TTLs decremented by the time spent here.
/// Truncated answers, SERVFAIL and every other error, answers with a TTL of 0 and negative
/// answers without a SOA are never kept. The least recently used entry goes when `capacity`
/// is reached.
///
/// The cache knows nothing of blocks: the forwarder asks it only for names the policy lets
/// through, checked before every lookup, so an answer kept before a block began is never
/// served during it. Confined to the forwarder's loop thread.
struct DNSAnswerCache {
    private struct Entry {
        var key: [UInt8]
        var answer: [UInt8]
        /// Offsets of the TTL field of every record but OPT.
        var ttlOffsets: [Int]
        var stored: UInt64
        var expires: UInt64
        var older: Int
        var newer: Int
    }

    let capacity: Int
    let maxTTL: UInt32
    private var index: [[UInt8]: Int] = [:]
    private var entries: [Entry] = []
    private var free: [Int] = []
    /// Most and least recently used entries (-1: none).
    private var newest = -1
    private var oldest = -1

    init(capacity: Int, maxTTL: UInt32 = 3600) {
        self.capacity = max(0, capacity)
        self.maxTTL = maxTTL
    }

    /// Entries held now (expired ones included until they are looked up or pushed out).
    var count: Int { index.count }

    /// The key of `query` (the packet as the client sent it) asked of `server` (empty: the
    /// configured upstream servers).
    static func key(_ packet: UnsafeRawBufferPointer, _ query: DNSQuery, server: [UInt8]) -> [UInt8] {
        var key = [UInt8](unsafeUninitializedCapacity: query.questionEnd - 12 + 1 + server.count) { buffer, count in
            for offset in 12..<query.questionEnd {
                var byte = packet[offset]
                if byte &- 0x41 < 26 { byte |= 0x20 }
                buffer[offset - 12] = byte
            }
            count = query.questionEnd - 12
        }
        var bits: UInt8 = UInt8(truncatingIfNeeded: query.flags >> 4) & 1  // CD
        if let edns = query.edns { bits |= 2 | (edns.dnssecOK ? 4 : 0) }
        if query.flags & 0x0020 != 0 { bits |= 8 }  // AD: the asker wants to know what was validated
        key.append(bits)
        key += server
        return key
    }

    /// The answer kept for `key` with `id`, the RD bit of the client's `flags` and its `question`
    /// bytes (0x20 letter case), its TTLs decremented by the time kept; nil when there is none
    /// or it expired.
    mutating func answer(_ key: [UInt8], id: UInt16, flags: UInt16, question: UnsafeRawBufferPointer, now: UInt64) -> [UInt8]? {
        guard let slot = index[key] else { return nil }
        let entry = entries[slot]
        guard now < entry.expires else {
            remove(slot)
            return nil
        }
        touch(slot)
        var out = entry.answer
        out[0] = UInt8(id >> 8)
        out[1] = UInt8(id & 0xff)
        out[2] = out[2] & ~0x01 | UInt8(truncatingIfNeeded: flags >> 8) & 0x01
        for offset in 0..<min(question.count, out.count - 12) { out[12 + offset] = question[offset] }
        let elapsed = UInt32(clamping: (now - entry.stored) / 1_000_000_000)
        if elapsed > 0 {
            for offset in entry.ttlOffsets {
                let ttl = UInt32(out[offset]) << 24 | UInt32(out[offset + 1]) << 16 | UInt32(out[offset + 2]) << 8 | UInt32(out[offset + 3])
                let left = ttl > elapsed ? ttl - elapsed : 0
                out[offset] = UInt8(left >> 24)
                out[offset + 1] = UInt8((left >> 16) & 0xff)
                out[offset + 2] = UInt8((left >> 8) & 0xff)
                out[offset + 3] = UInt8(left & 0xff)
            }
        }
        return out
    }

    /// Keeps `response` (an upstream answer to the query of `key`) if it may be kept.
    mutating func store(_ key: [UInt8], _ response: UnsafeRawBufferPointer, now: UInt64) {
        guard capacity > 0, let (ttl, offsets) = Self.lifetime(response), ttl > 0 else { return }
        let lifetime = UInt64(min(ttl, maxTTL)) * 1_000_000_000
        if let slot = index[key] { remove(slot) }
        if index.count >= capacity, oldest >= 0 { remove(oldest) }
        let entry = Entry(
            key: key, answer: Array(response), ttlOffsets: offsets, stored: now, expires: now + lifetime, older: -1, newer: -1)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        index[key] = slot
        link(slot)
    }

    /// Forgets everything.
    mutating func removeAll() {
        index.removeAll()
        entries.removeAll()
        free.removeAll()
        newest = -1
        oldest = -1
    }

    /// How long `response` may be kept and where its TTLs are; nil when it must not be kept.
    static func lifetime(_ response: UnsafeRawBufferPointer) -> (ttl: UInt32, offsets: [Int])? {
        guard response.count >= 12 else { return nil }
        let flags = DNSQuery.read16(response, 2)
        let rcode = flags & 0xf
        guard flags & 0x8000 != 0, flags & 0x0200 == 0, rcode == 0 || rcode == 3, DNSQuery.read16(response, 4) == 1 else { return nil }
        let answers = Int(DNSQuery.read16(response, 6))
        let total = answers + Int(DNSQuery.read16(response, 8)) + Int(DNSQuery.read16(response, 10))
        guard var position = skipName(response, 12), position + 4 <= response.count else { return nil }
        position += 4
        var offsets: [Int] = []
        var smallest = UInt32.max
        var negative: UInt32?
        for record in 0..<total {
            guard let nameEnd = skipName(response, position), nameEnd + 10 <= response.count else { return nil }
            let type = DNSQuery.read16(response, nameEnd)
            let ttl = UInt32(DNSQuery.read16(response, nameEnd + 4)) << 16 | UInt32(DNSQuery.read16(response, nameEnd + 6))
            let end = nameEnd + 10 + Int(DNSQuery.read16(response, nameEnd + 8))
            guard end <= response.count else { return nil }
            if type != DNSQuery.typeOPT {
                offsets.append(nameEnd + 4)
                smallest = min(smallest, ttl)
                // A SOA in the authority section bounds a negative answer: its TTL and MINIMUM.
                if type == 6, record >= answers, end - 4 >= nameEnd + 10 {
                    let minimum = UInt32(DNSQuery.read16(response, end - 4)) << 16 | UInt32(DNSQuery.read16(response, end - 2))
                    negative = min(negative ?? .max, min(ttl, minimum))
                }
            }
            position = end
        }
        if rcode == 3 || answers == 0 {
            guard let negative else { return nil }
            return (min(negative, smallest), offsets)
        }
        return (smallest, offsets)
    }

    private static func skipName(_ packet: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var position = start
        while position < packet.count {
            let byte = packet[position]
            if byte & 0xC0 == 0xC0 { return position + 2 }
            guard byte & 0xC0 == 0 else { return nil }
            position += 1 + Int(byte)
            if byte == 0 { return position }
        }
        return nil
    }

    // MARK: - Recency list

    private mutating func link(_ slot: Int) {
        entries[slot].older = newest
        entries[slot].newer = -1
        if newest >= 0 { entries[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (entries[slot].older, entries[slot].newer)
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        if newer >= 0 { entries[newer].older = older } else { newest = older }
    }

    private mutating func touch(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        link(slot)
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        index[entries[slot].key] = nil
        entries[slot].answer = []
        entries[slot].key = []
        free.append(slot)
    }
}
