/// An IPv4 or IPv6 network: an address and a prefix length (`203.0.113.0/24`, `2001:db8::/32`),
/// or a single address (`198.51.100.7`, `2001:db8::1`), which is a network of one.
///
/// Host bits are cleared when a value is made (`203.0.113.9/24` becomes `203.0.113.0/24`), so two
/// spellings of the same network compare equal. Parsing is strict: IPv4 parts with leading zeros
/// (which some tools read as octal), zone indices (`fe80::1%eth0`) and whitespace are rejected
/// with a message that quotes the value.
public struct IPNetwork: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The address family.
    public enum Family: String, Sendable, Hashable, Codable, CaseIterable {
        case ipv4
        case ipv6

        /// Number of bits in an address of this family (32 or 128).
        public var bitWidth: Int { self == .ipv4 ? 32 : 128 }
    }

    /// The address family.
    public let family: Family
    /// The first address of the network as an integer (an IPv4 address in the low 32 bits).
    public let address: UInt128
    /// Number of leading bits that name the network: 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// Creates a network from its parts; host bits of `address` are cleared.
    ///
    /// - Parameter prefixLength: defaults to the full width, a single address.
    /// - Throws: `IPNetworkError` if the prefix length or the address do not fit the family.
    public init(family: Family, address: UInt128, prefixLength: Int? = nil) throws(IPNetworkError) {
        let length = prefixLength ?? family.bitWidth
        guard (0...family.bitWidth).contains(length) else {
            throw IPNetworkError(
                value: "\(Self.format(address: address, family: family))/\(length)",
                reason: "prefix length \(length) is out of range 0...\(family.bitWidth) for \(family == .ipv4 ? "IPv4" : "IPv6")")
        }
        if family == .ipv4, address > UInt128(UInt32.max) {
            throw IPNetworkError(value: String(address), reason: "does not fit in 32 bits")
        }
        self.family = family
        self.prefixLength = length
        self.address = address & Self.mask(prefixLength: length, family: family)
    }

    /// Parses `203.0.113.0/24`, `2001:db8::/32`, `198.51.100.7` or `2001:db8::1`.
    ///
    /// - Throws: `IPNetworkError` naming the value and what is wrong with it.
    public init(parsing text: String) throws(IPNetworkError) {
        let fail = { (reason: String) in IPNetworkError(value: text, reason: reason) }
        guard !text.isEmpty else { throw fail("empty value") }
        if text.contains(where: \.isWhitespace) { throw fail("contains whitespace") }
        if text.contains("%") { throw fail("zone indices (\"%\") are not supported") }

        let parts = text.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw fail("more than one \"/\"") }
        let addressText = parts[0]
        let family: Family
        let address: UInt128
        if addressText.contains(":") {
            family = .ipv6
            guard let parsed = Self.parseIPv6(addressText) else { throw fail("not a valid IPv6 address") }
            address = parsed
        } else {
            family = .ipv4
            guard let parsed = Self.parseIPv4(addressText) else {
                throw fail("not a valid IPv4 address (four decimal parts 0-255 without leading zeros)")
            }
            address = UInt128(parsed)
        }

        var length = family.bitWidth
        if parts.count == 2 {
            let lengthText = parts[1]
            guard !lengthText.isEmpty, lengthText.count <= 3, lengthText.allSatisfy(\.isASCII),
                lengthText.allSatisfy(\.isNumber), let value = Int(lengthText)
            else {
                throw fail("prefix length \"\(lengthText)\" is not a number")
            }
            guard value <= family.bitWidth else {
                throw fail("prefix length \(value) is out of range 0...\(family.bitWidth) for \(family == .ipv4 ? "IPv4" : "IPv6")")
            }
            length = value
        }
        self.family = family
        self.prefixLength = length
        self.address = address & Self.mask(prefixLength: length, family: family)
    }

    /// True when the network is one address (`/32` for IPv4, `/128` for IPv6).
    public var isSingleAddress: Bool { prefixLength == family.bitWidth }

    /// The last address of the network.
    public var lastAddress: UInt128 {
        address | ~Self.mask(prefixLength: prefixLength, family: family) & Self.familyMask(family)
    }

    /// True when every address of `other` lies in this network.
    public func contains(_ other: IPNetwork) -> Bool {
        family == other.family && address <= other.address && other.lastAddress <= lastAddress
    }

    /// Canonical text: a single address without prefix, otherwise `address/length`; IPv6 in the
    /// RFC 5952 form (lowercase, longest run of zero groups shortened to `::`).
    public var description: String {
        let text = Self.format(address: address, family: family)
        return isSingleAddress ? text : "\(text)/\(prefixLength)"
    }

    /// IPv4 before IPv6, then by first address, then wider networks first.
    public static func < (a: IPNetwork, b: IPNetwork) -> Bool {
        if a.family != b.family { return a.family == .ipv4 }
        if a.address != b.address { return a.address < b.address }
        return a.prefixLength < b.prefixLength
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try IPNetwork(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Formats one address of `family` (an IPv4 address in the low 32 bits).
    public static func format(address: UInt128, family: Family) -> String {
        switch family {
        case .ipv4:
            let v = UInt32(truncatingIfNeeded: address)
            return "\(v >> 24).\((v >> 16) & 0xff).\((v >> 8) & 0xff).\(v & 0xff)"
        case .ipv6:
            let groups = (0..<8).map { UInt16(truncatingIfNeeded: address >> UInt128(112 - 16 * $0)) }
            // RFC 5952: shorten the longest run of two or more zero groups, the first if tied.
            var bestStart = -1, bestLength = 1, runStart = -1
            for i in 0...8 {
                if i < 8, groups[i] == 0 {
                    if runStart < 0 { runStart = i }
                } else if runStart >= 0 {
                    if i - runStart > bestLength {
                        bestStart = runStart
                        bestLength = i - runStart
                    }
                    runStart = -1
                }
            }
            let hex = groups.map { String($0, radix: 16) }
            guard bestStart >= 0 else { return hex.joined(separator: ":") }
            let head = hex[..<bestStart].joined(separator: ":")
            let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
            return "\(head)::\(tail)"
        }
    }

    /// The netmask of a prefix length, within the family's width.
    static func mask(prefixLength: Int, family: Family) -> UInt128 {
        let width = family.bitWidth
        if prefixLength == 0 { return 0 }
        let ones = familyMask(family)
        return (ones << UInt128(width - prefixLength)) & ones
    }

    private static func familyMask(_ family: Family) -> UInt128 {
        family == .ipv4 ? UInt128(UInt32.max) : UInt128.max
    }

    private static func parseIPv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                !(part.count > 1 && part.first == "0"),
                let octet = UInt32(part), octet <= 255
            else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    private static func parseIPv6(_ text: Substring) -> UInt128? {
        // Split around the one allowed "::"; each side is a list of groups, the last of which may
        // be an embedded dotted IPv4 address worth two groups.
        let halves = splitOnDoubleColon(String(text))
        guard halves.count <= 2 else { return nil }

        func groups(_ side: String, allowIPv4Tail: Bool) -> [UInt16]? {
            if side.isEmpty { return [] }
            let items = side.split(separator: ":", omittingEmptySubsequences: false)
            var result: [UInt16] = []
            for (index, item) in items.enumerated() {
                if item.contains(".") {
                    guard allowIPv4Tail, index == items.count - 1, let v4 = parseIPv4(item) else { return nil }
                    result.append(UInt16(v4 >> 16))
                    result.append(UInt16(v4 & 0xffff))
                } else {
                    guard !item.isEmpty, item.count <= 4, item.allSatisfy(\.isHexDigit),
                        let group = UInt16(item, radix: 16)
                    else { return nil }
                    result.append(group)
                }
            }
            return result
        }

        var all: [UInt16]
        if halves.count == 2 {
            guard let head = groups(halves[0], allowIPv4Tail: false),
                let tail = groups(halves[1], allowIPv4Tail: true),
                head.count + tail.count <= 7
            else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let only = groups(halves[0], allowIPv4Tail: true), only.count == 8 else { return nil }
            all = only
        }
        return all.reduce(UInt128(0)) { $0 << 16 | UInt128($1) }
    }

    private static func splitOnDoubleColon(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index] == ":", next < text.endIndex, text[next] == ":" {
                pieces.append(current)
                current = ""
                index = text.index(after: next)
            } else {
                current.append(text[index])
                index = next
            }
        }
        pieces.append(current)
        return pieces
    }
}
