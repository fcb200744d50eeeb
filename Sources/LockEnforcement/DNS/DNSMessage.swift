import LockCore

/// The parts of the DNS wire format (RFC 1035, EDNS0 from RFC 6891) that resolving A and AAAA
/// records needs: building a query and reading the answer section of a response.
///
/// A pure value type so the codec can be tested byte by byte without a network.
struct DNSMessage: Sendable, Equatable {
    /// Record types this resolver asks for or reads.
    enum RecordType: UInt16, Sendable {
        case a = 1
        case cname = 5
        case aaaa = 28
        case opt = 41
    }

    /// Response codes the resolver acts on; others are treated like `serverFailure`.
    enum ResponseCode: UInt8, Sendable {
        case noError = 0
        case formatError = 1
        case serverFailure = 2
        case nameError = 3
        case notImplemented = 4
        case refused = 5
    }

    /// One resource record; `data` is the raw RDATA, except for CNAME where `target` holds the
    /// decompressed name.
    struct Record: Sendable, Equatable {
        var name: String
        var type: UInt16
        var recordClass: UInt16
        var data: [UInt8]
        var target: String?
    }

    var id: UInt16
    var isResponse: Bool
    var opcode: UInt8
    var truncated: Bool
    var rcode: UInt8
    var questionName: String
    var questionType: UInt16
    var questionClass: UInt16
    var answers: [Record]

    /// Largest UDP payload advertised through EDNS0: the 2020 DNS flag day value, small enough
    /// to avoid IP fragmentation, large enough that A/AAAA answers are almost never truncated.
    static let ednsPayloadSize: UInt16 = 1232

    /// Encodes a recursive query for `name` (no trailing dot needed); nil if the name is not a
    /// valid host name.
    static func query(id: UInt16, name: String, type: RecordType, edns: Bool = true) -> [UInt8]? {
        guard let encodedName = encode(name: name) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + encodedName.count + 4 + (edns ? 11 : 0))
        append16(&bytes, id)
        append16(&bytes, 0x0100)  // standard query, recursion desired
        append16(&bytes, 1)  // QDCOUNT
        append16(&bytes, 0)  // ANCOUNT
        append16(&bytes, 0)  // NSCOUNT
        append16(&bytes, edns ? 1 : 0)  // ARCOUNT
        bytes += encodedName
        append16(&bytes, type.rawValue)
        append16(&bytes, 1)  // class IN
        if edns {
            bytes.append(0)  // root owner name
            append16(&bytes, RecordType.opt.rawValue)
            append16(&bytes, ednsPayloadSize)
            bytes += [0, 0, 0, 0]  // extended RCODE, version 0, no flags
            append16(&bytes, 0)  // no options
        }
        return bytes
    }

    /// Parses a message; nil if it is malformed (truncated fields, bad compression pointers,
    /// not exactly one question).
    init?(bytes: [UInt8]) {
        guard bytes.count >= 12 else { return nil }
        var reader = Reader(bytes: bytes, offset: 0)
        guard let id = reader.u16(), let flags = reader.u16(), let qdcount = reader.u16(),
            let ancount = reader.u16(), reader.u16() != nil, reader.u16() != nil
        else { return nil }
        guard qdcount == 1, let qname = reader.name(), let qtype = reader.u16(), let qclass = reader.u16() else {
            return nil
        }
        var answers: [Record] = []
        answers.reserveCapacity(Int(ancount))
        for _ in 0..<ancount {
            guard let name = reader.name(), let type = reader.u16(), let recordClass = reader.u16(),
                reader.u32() != nil, let length = reader.u16()
            else { return nil }
            let dataStart = reader.offset
            guard let data = reader.bytes(Int(length)) else { return nil }
            var target: String?
            if type == RecordType.cname.rawValue {
                var inner = Reader(bytes: bytes, offset: dataStart)
                guard let name = inner.name(), inner.offset <= dataStart + Int(length) else { return nil }
                target = name
            }
            answers.append(Record(name: name, type: type, recordClass: recordClass, data: data, target: target))
        }
        self.id = id
        self.isResponse = flags & 0x8000 != 0
        self.opcode = UInt8((flags >> 11) & 0xf)
        self.truncated = flags & 0x0200 != 0
        self.rcode = UInt8(flags & 0xf)
        self.questionName = qname
        self.questionType = qtype
        self.questionClass = qclass
        self.answers = answers
    }

    /// The addresses that answer the question: records of the asked type owned by the asked
    /// name or by a name it is an alias of (following the CNAME chain in the answer section).
    var addresses: [IPNetwork] {
        var chain: Set<String> = [questionName]
        // Resolvers put the chain in order, but nothing requires it; iterate until it stops
        // growing, bounded so a CNAME loop cannot spin.
        for _ in 0..<16 {
            let before = chain.count
            for record in answers where record.type == RecordType.cname.rawValue && chain.contains(record.name) {
                if let target = record.target { chain.insert(target) }
            }
            if chain.count == before { break }
        }
        var result: [IPNetwork] = []
        for record in answers where record.type == questionType && record.recordClass == 1 && chain.contains(record.name) {
            if record.type == RecordType.a.rawValue, record.data.count == 4 {
                let value = record.data.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
                if let network = try? IPNetwork(family: .ipv4, address: value) { result.append(network) }
            } else if record.type == RecordType.aaaa.rawValue, record.data.count == 16 {
                let value = record.data.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
                if let network = try? IPNetwork(family: .ipv6, address: value) { result.append(network) }
            }
        }
        return result
    }

    /// A name as it appears in parsed messages: lowercase, without a trailing dot.
    static func canonical(_ name: String) -> String {
        var text = name.lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// True for a syntactically valid host name: dot-separated labels of letters, digits, `_`
    /// and inner `-`, 1–63 bytes each, at most 253 bytes in all (a trailing dot is allowed).
    static func isValidHostName(_ name: String) -> Bool {
        encode(name: name) != nil
    }

    /// Encodes a name as length-prefixed labels, lowercased; nil if it is not a valid host name.
    static func encode(name: String) -> [UInt8]? {
        var text = name
        if text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty, text.utf8.count <= 253 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        for label in text.split(separator: ".", omittingEmptySubsequences: false) {
            let utf8 = Array(label.utf8)
            // Letters, digits and inner hyphens (RFC 1123); underscores too, for service labels.
            guard (1...63).contains(utf8.count), utf8.first != 0x2d, utf8.last != 0x2d else { return nil }
            for byte in utf8 {
                let ok =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a)
                    || (byte >= 0x61 && byte <= 0x7a) || byte == 0x2d || byte == 0x5f
                guard ok else { return nil }
            }
            bytes.append(UInt8(utf8.count))
            bytes += utf8.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0 }
        }
        bytes.append(0)
        return bytes
    }

    private static func append16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xff))
    }

    /// A bounds-checked cursor over a message.
    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func u16() -> UInt16? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        mutating func u32() -> UInt32? {
            guard let high = u16(), let low = u16() else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        /// Reads a possibly compressed name, lowercased, without the trailing dot ("" for root).
        mutating func name() -> String? {
            var labels: [String] = []
            var position = offset
            var jumped = false
            var jumps = 0
            var length = 0
            while true {
                guard position < bytes.count else { return nil }
                let byte = bytes[position]
                if byte & 0xc0 == 0xc0 {
                    guard position + 1 < bytes.count else { return nil }
                    jumps += 1
                    guard jumps <= 32 else { return nil }
                    let target = Int(byte & 0x3f) << 8 | Int(bytes[position + 1])
                    if !jumped { offset = position + 2 }
                    jumped = true
                    // Only backward pointers: a forward one could form a loop with fewer checks.
                    guard target < position else { return nil }
                    position = target
                } else if byte & 0xc0 != 0 {
                    return nil
                } else if byte == 0 {
                    if !jumped { offset = position + 1 }
                    return labels.joined(separator: ".")
                } else {
                    let count = Int(byte)
                    guard position + 1 + count <= bytes.count else { return nil }
                    length += count + 1
                    guard length <= 255 else { return nil }
                    let label = bytes[(position + 1)...(position + count)].map {
                        $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0
                    }
                    labels.append(String(decoding: label, as: UTF8.self))
                    position += 1 + count
                }
            }
        }
    }
}
