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

    /// The names `forEach` produces, in any order, sorted and unique: read into one buffer and
    /// ordered by offset, so that no `String` is kept per name while sorting (100 000 names
    /// as strings took three times the memory of the list, and sorting them most of the time).
    public init(collecting forEach: ((String) -> Void) -> Void) {
        var raw: [UInt8] = []
        var rawEnds: [UInt32] = []
        forEach { name in
            var name = name
            name.withUTF8 { raw.append(contentsOf: $0) }
            rawEnds.append(UInt32(raw.count))
        }
        var order = Array(rawEnds.indices)
        reserveCapacity(rawEnds.count, length: raw.count / Swift.max(1, rawEnds.count) + 1)
        raw.withUnsafeBufferPointer { all in
            func name(_ index: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[(index == 0 ? 0 : Int(rawEnds[index - 1]))..<Int(rawEnds[index])])
            }
            order.sort { Self.compare(name($0), name($1)) < 0 }
            for index in order { append(bytes: name(index)) }
        }
        shrinkToFit()
    }

    /// The union of sorted lists, merged without sorting again.
    public init(merging lists: [NameList]) {
        self = lists.reduce(NameList()) { NameList.union($0, $1) }
    }

    /// Appends a name that sorts after every name in the list; anything else is ignored, so
    /// that a merge of sorted lists stays sorted and unique.
    public mutating func append(_ name: String) {
        var name = name
        name.withUTF8 { append(bytes: $0) }
    }

    private mutating func append(bytes name: UnsafeBufferPointer<UInt8>, prefix: StaticString? = nil) {
        if let last = ends.last {
            let start = ends.count > 1 ? Int(ends[ends.count - 2]) : 0
            let order = bytes.withUnsafeBufferPointer { all in
                Self.compare(UnsafeBufferPointer(rebasing: all[start..<Int(last)]), name, prefix: prefix)
            }
            guard order < 0 else { return }
        }
        if let prefix { bytes.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)) }
        bytes.append(contentsOf: name)
        ends.append(UInt32(bytes.count))
    }

    /// `names` and the `www.` twin of every name that does not start with `www.`, sorted: the
    /// twins of sorted names are themselves sorted (one common prefix), so one merge of the list
    /// with its twins, made as they are read, orders them without a list of the twins alone.
    public init(addingWWWTwinsTo names: NameList) {
        reserveCapacity(2 * names.count, length: names.bytes.count / Swift.max(1, names.count) + 2)
        names.bytes.withUnsafeBufferPointer { all in
            var twin = 0
            func nextTwin() {
                while twin < names.count, UnsafeBufferPointer(rebasing: all[names.range(twin)]).starts(with: "www.".utf8) { twin += 1 }
            }
            nextTwin()
            for index in 0..<names.count {
                let name = UnsafeBufferPointer(rebasing: all[names.range(index)])
                while twin < names.count, Self.compare(name, UnsafeBufferPointer(rebasing: all[names.range(twin)]), prefix: "www.") > 0 {
                    append(bytes: UnsafeBufferPointer(rebasing: all[names.range(twin)]), prefix: "www.")
                    twin += 1
                    nextTwin()
                }
                append(bytes: name)
            }
            while twin < names.count {
                append(bytes: UnsafeBufferPointer(rebasing: all[names.range(twin)]), prefix: "www.")
                twin += 1
                nextTwin()
            }
        }
        shrinkToFit()
    }

    /// The first `count` names of `list` (all of them when it has no more), as a list of its
    /// own: one copy of their bytes, no `String` per name.
    public init(first count: Int, of list: NameList) {
        guard count < list.count else {
            self = list
            return
        }
        guard count > 0 else { return }
        ends = Array(list.ends[..<count])
        bytes = Array(list.bytes[..<Int(list.ends[count - 1])])
    }

    /// True when every name of the list is also in `other`: one walk over both, by bytes.
    public func isSubset(of other: NameList) -> Bool {
        guard count <= other.count else { return false }
        return bytes.withUnsafeBufferPointer { mine in
            other.bytes.withUnsafeBufferPointer { theirs in
                var j = 0
                for i in 0..<count {
                    let name = UnsafeBufferPointer(rebasing: mine[range(i)])
                    while j < other.count, Self.compare(UnsafeBufferPointer(rebasing: theirs[other.range(j)]), name) < 0 { j += 1 }
                    guard j < other.count, Self.compare(UnsafeBufferPointer(rebasing: theirs[other.range(j)]), name) == 0 else {
                        return false
                    }
                    j += 1
                }
                return true
            }
        }
    }

    /// The names of both lists, merged without sorting again.
    public static func union(_ a: NameList, _ b: NameList) -> NameList {
        if b.isEmpty { return a }
        if a.isEmpty { return b }
        var result = NameList()
        result.bytes.reserveCapacity(a.bytes.count + b.bytes.count)
        result.ends.reserveCapacity(a.count + b.count)
        a.bytes.withUnsafeBufferPointer { left in
            b.bytes.withUnsafeBufferPointer { right in
                var i = 0
                var j = 0
                while i < a.count || j < b.count {
                    let x = i < a.count ? UnsafeBufferPointer(rebasing: left[a.range(i)]) : nil
                    let y = j < b.count ? UnsafeBufferPointer(rebasing: right[b.range(j)]) : nil
                    if let x, y == nil || compare(x, y!) <= 0 {
                        result.append(bytes: x)
                        i += 1
                    } else {
                        result.append(bytes: y!)
                        j += 1
                    }
                }
            }
        }
        result.shrinkToFit()
        return result
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
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                var low = 0
                var high = ends.count
                while low < high {
                    let middle = (low + high) / 2
                    let order = Self.compare(UnsafeBufferPointer(rebasing: all[range(middle)]), wanted)
                    if order == 0 { return true }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return false
            }
        }
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
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in compare(x, y) < 0 } }
    }

    private func range(_ position: Int) -> Range<Int> {
        (position == 0 ? 0 : Int(ends[position - 1]))..<Int(ends[position])
    }

    /// Negative, zero or positive as `a` sorts before, with or after `prefix` + `b`.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, prefix: StaticString? = nil) -> Int {
        var index = 0
        if let prefix {
            let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            while index < head.count {
                guard index < a.count else { return -1 }
                if a[index] != head[index] { return a[index] < head[index] ? -1 : 1 }
                index += 1
            }
        }
        let offset = index
        while index < a.count, index - offset < b.count {
            let x = a[index]
            let y = b[index - offset]
            if x != y { return x < y ? -1 : 1 }
            index += 1
        }
        return (a.count - offset) - b.count
    }
}
