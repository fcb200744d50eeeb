/// Domain names, sorted and unique, kept as one UTF-8 buffer and the end offset of each name.
///
/// What a block lists by exact name (`DesiredBlock.domains`) can be hundreds of thousands of
/// names with their `www.` twins. As `[String]` each name was an object of its own, about
/// 80 bytes for a 20-character name; here it is its bytes and four more. Elements are made
/// into `String`s when read.
///
/// Order is by UTF-8 bytes, which for normalised names (ASCII, or NFC) is `String`'s order.
public struct NameList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral, Codable,
    CustomStringConvertible
{
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    /// The empty list.
    public init() {}

    /// `names` sorted, without repeats; names that already are sorted and unique (one large
    /// session's) are only checked.
    public init(_ names: some Sequence<String>) {
        let array = Array(names)
        if zip(array, array.dropFirst()).allSatisfy({ Self.precedes($0, $1) }) {
            self.init(sortedUnique: array)
        } else {
            let sorted = array.sorted { Self.precedes($0, $1) }
            self.init(sortedUnique: zip(sorted.indices, sorted).lazy.filter { $0.0 == 0 || sorted[$0.0 - 1] != $0.1 }.map(\.1))
        }
    }

    /// Names already sorted and unique (as `precedes` orders them).
    public init(sortedUnique names: some Sequence<String>) {
        for name in names { append(name) }
        shrinkToFit()
    }

    public init(arrayLiteral names: String...) { self.init(names) }

    /// The union of sorted lists, merged without sorting again.
    public init(merging lists: [NameList]) {
        guard lists.count > 1 else {
            self = lists.first ?? NameList()
            return
        }
        reserveCapacity(lists.reduce(0) { $0 + $1.count })
        var positions = Array(repeating: 0, count: lists.count)
        while true {
            var smallest: (list: Int, name: String)?
            for (list, position) in positions.enumerated() where position < lists[list].count {
                let name = lists[list][position]
                if smallest == nil || Self.precedes(name, smallest!.name) { smallest = (list, name) }
            }
            guard let (list, name) = smallest else { break }
            positions[list] += 1
            append(name)
        }
        shrinkToFit()
    }

    /// Appends a name that sorts after every name in the list; anything else is ignored, so
    /// that a merge of sorted lists stays sorted and unique.
    public mutating func append(_ name: String) {
        if let last = ends.last {
            let start = ends.count > 1 ? Int(ends[ends.count - 2]) : 0
            guard Self.compare(bytes[start..<Int(last)], name.utf8) == .less else { return }
        }
        bytes.append(contentsOf: name.utf8)
        ends.append(UInt32(bytes.count))
    }

    /// Gives back the room that growing left unused: a block's list lives as long as the block.
    public mutating func shrinkToFit() {
        if bytes.capacity > bytes.count + bytes.count / 8 { bytes = Array(bytes[...]) }
        if ends.capacity > ends.count + ends.count / 8 { ends = Array(ends[...]) }
    }

    /// Makes room for `count` names of about `length` bytes.
    public mutating func reserveCapacity(_ count: Int, length: Int = 24) {
        ends.reserveCapacity(count)
        bytes.reserveCapacity(count * length)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.count }

    public subscript(position: Int) -> String {
        String(decoding: bytes[range(position)], as: UTF8.self)
    }

    /// True when `name` is in the list: a binary search, without making `String`s.
    public func contains(_ name: String) -> Bool {
        var low = 0
        var high = ends.count
        while low < high {
            let middle = (low + high) / 2
            switch Self.compare(bytes[range(middle)], name.utf8) {
            case .less: low = middle + 1
            case .equal: return true
            case .greater: high = middle
            }
        }
        return false
    }

    public var description: String { Array(self).description }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([String].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }

    /// The order of the list: by UTF-8 bytes.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        compare(a.utf8, b.utf8) == .less
    }

    private func range(_ position: Int) -> Range<Int> {
        (position == 0 ? 0 : Int(ends[position - 1]))..<Int(ends[position])
    }

    private enum Order { case less, equal, greater }

    private static func compare(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Order {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .equal
            case (nil, _): return .less
            case (_, nil): return .greater
            case (let x?, let y?) where x != y: return x < y ? .less : .greater
            default: continue
            }
        }
    }
}
