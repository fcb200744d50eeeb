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
        if let list = names as? DomainList {
            self = list
            return
        }
        self.init { add in for name in names { add(name) } }
    }

    /// The names `forEach` produces, in their order, each kept the first time it appears: read
    /// into one buffer, with repeats found by sorting offsets, so that no `DomainName` is kept
    /// per name (a set of 100 000 to find repeats took 4 MB at every read of a large profile).
    public init<Failure: Error>(collecting forEach: ((DomainName) -> Void) throws(Failure) -> Void) throws(Failure) {
        var raw: [UInt8] = []
        var rawEnds: [UInt32] = []
        try forEach { name in
            var value = name.value
            value.withUTF8 { raw.append(contentsOf: $0) }
            rawEnds.append(UInt32(raw.count))
        }
        var keep = [Bool](repeating: true, count: rawEnds.count)
        var length = raw.count
        raw.withUnsafeBufferPointer { all in
            func name(_ index: Int32) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[(index == 0 ? 0 : Int(rawEnds[Int(index) - 1]))..<Int(rawEnds[Int(index)])])
            }
            // Equal names sort together, the first written first; every later one is a repeat.
            var order = (0..<Int32(rawEnds.count)).map { $0 }
            order.sort { a, b in
                let comparison = NameList.compare(name(a), name(b))
                return comparison != 0 ? comparison < 0 : a < b
            }
            for (previous, index) in zip(order, order.dropFirst()) where NameList.compare(name(previous), name(index)) == 0 {
                keep[Int(index)] = false
                length -= name(index).count
            }
        }
        // Reserved exactly: the list lives as long as the profile, growth would leave slack.
        bytes.reserveCapacity(length)
        ends.reserveCapacity(keep.count { $0 })
        for index in rawEnds.indices where keep[index] {
            bytes.append(contentsOf: raw[(index == 0 ? 0 : Int(rawEnds[index - 1]))..<Int(rawEnds[index])])
            ends.append(UInt32(bytes.count))
        }
    }

    /// True when `name` is in the list: a scan of its bytes, without making `DomainName`s.
    public func contains(_ name: DomainName) -> Bool {
        var value = name.value
        return value.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                var start = 0
                for end in ends {
                    if Int(end) - start == wanted.count,
                        NameList.compare(UnsafeBufferPointer(rebasing: all[start..<Int(end)]), wanted) == 0
                    {
                        return true
                    }
                    start = Int(end)
                }
                return false
            }
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
