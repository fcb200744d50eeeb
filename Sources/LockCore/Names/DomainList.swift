/// A profile's domain names in the order written, without repeats, kept as one UTF-8 buffer
/// and the end offset of each name.
///
/// A profile of 100 000 domains held as `[DomainName]` took about 85 bytes a name, for as long
/// as the daemon ran; here a name takes its bytes and four more. Elements are made into
/// `DomainName`s when read.
public struct DomainList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral, Codable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    /// `names` in their order, each kept the first time it appears.
    public init(_ names: some Sequence<DomainName>) {
        var seen = Set<DomainName>()
        let unique = names.filter { seen.insert($0).inserted }
        // Reserved exactly: the list lives as long as the profile, growth would leave slack.
        bytes.reserveCapacity(unique.reduce(0) { $0 + $1.value.utf8.count })
        ends.reserveCapacity(unique.count)
        for name in unique {
            bytes.append(contentsOf: name.value.utf8)
            ends.append(UInt32(bytes.count))
        }
    }

    public init(arrayLiteral names: DomainName...) { self.init(names) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.count }

    public subscript(position: Int) -> DomainName {
        let start = position == 0 ? 0 : Int(ends[position - 1])
        return DomainName(normalized: String(decoding: bytes[start..<Int(ends[position])], as: UTF8.self))
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([DomainName].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }
}
