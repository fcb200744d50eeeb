/// An immutable, compact set of domain rules with suffix matching, sized for blocklists of
/// millions of names: a rule `reddit.com` matches `reddit.com` and every name below it.
///
/// A `Set<String>` of 1 000 000 names costs about 90 MB; this keeps the names once, as
/// length-prefixed bytes in 256 KiB chunks (about 21 bytes for an average name), plus an
/// open-addressing hash index of one `UInt64` per slot at a load factor of at most one half
/// (16 MB for 1 000 000 names). A lookup hashes each suffix of the query that starts at a
/// label (`a.b.reddit.com`, `b.reddit.com`, `reddit.com`, `com`), so it costs O(labels) probes
/// whatever the size of the set, and it allocates nothing unless it returns a `String`.
///
/// Names are stored lowercased without a trailing dot; lookups ignore ASCII case and a
/// trailing dot. Values share their storage: copies are free.
public struct DomainSuffixSet: Sendable {
    private let storage: Storage

    /// The empty set.
    public static let empty = DomainSuffixSet(storage: Storage())

    private init(storage: Storage) { self.storage = storage }

    /// Builds a set from names (see `Builder.insert`), dropping the names a listed parent
    /// already covers when `collapsingCovered` is set.
    public init(_ names: some Sequence<String>, collapsingCovered: Bool = true, seed: UInt64 = Builder.defaultSeed) {
        let builder = Builder(seed: seed)
        for name in names { builder.insert(name) }
        self = builder.build(collapsingCovered: collapsingCovered)
    }

    /// Number of names in the set.
    public var count: Int { storage.count }

    /// True when both share one storage (copies of one set): equal without comparing names.
    public func isSameStorage(as other: DomainSuffixSet) -> Bool { storage === other.storage }

    /// True when the set holds no name.
    public var isEmpty: Bool { storage.count == 0 }

    /// Bytes allocated for names and index (what the set adds to the process's memory).
    public var allocatedBytes: Int { storage.allocatedBytes }

    /// The most specific rule matching `name`, or nil. `name` may carry upper case and a
    /// trailing dot.
    public func match(_ name: some StringProtocol) -> String? {
        var text = String(name)
        return text.withUTF8 { bytes -> String? in
            guard let length = matchLength(UnsafeRawBufferPointer(bytes)) else { return nil }
            let trimmed = bytes.count > 0 && bytes[bytes.count - 1] == dot ? bytes.count - 1 : bytes.count
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[(trimmed - length)..<trimmed]),
                as: UTF8.self
            ).asciiLowercased()
        }
    }

    /// The length in bytes of the most specific rule matching `name` (the rule is the last
    /// that many bytes of `name` without its trailing dot), or nil. Allocates nothing: this is
    /// the form for the DNS hot path.
    public func matchLength(_ name: UnsafeRawBufferPointer) -> Int? {
        var end = name.count
        if end > 0, name[end - 1] == dot { end -= 1 }
        guard end > 0, end <= Self.maximumNameLength, storage.count > 0 else { return nil }
        var start = 0
        while true {
            if storage.contains(name, start, end) { return end - start }
            guard let next = name[start..<end].firstIndex(of: dot) else { return nil }
            start = next + 1
            if start >= end { return nil }
        }
    }

    /// True when `name` itself is in the set (not merely covered by a parent).
    public func containsExactly(_ name: some StringProtocol) -> Bool {
        var text = String(name)
        return text.withUTF8 { bytes in
            var end = bytes.count
            if end > 0, bytes[end - 1] == dot { end -= 1 }
            guard end > 0, end <= Self.maximumNameLength else { return false }
            return storage.contains(UnsafeRawBufferPointer(bytes), 0, end)
        }
    }

    /// Calls `body` with every name, in the order they were first inserted.
    public func forEach(_ body: (String) -> Void) {
        storage.forEachEntry { _, bytes in body(String(decoding: bytes, as: UTF8.self)) }
    }

    /// Calls `body` with the bytes of every name (lowercase, no trailing dot), in the order
    /// they were first inserted, without making strings: for writing a set out.
    public func forEachName(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try storage.forEachEntryThrowing { _, bytes in try body(bytes) }
    }

    /// Every name, sorted (allocates them all: for tests and small sets).
    public var sorted: [String] {
        var names: [String] = []
        names.reserveCapacity(count)
        forEach { names.append($0) }
        return names.sorted()
    }

    /// The longest name a set holds (RFC 1035 limit, without the trailing dot).
    public static let maximumNameLength = 253
}

private let dot = UInt8(ascii: ".")

@inline(__always)
private func lower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}

extension String {
    fileprivate func asciiLowercased() -> String {
        String(decoding: utf8.map(lower), as: UTF8.self)
    }
}

extension DomainSuffixSet {
    /// Collects names one by one (from a stream) and builds the set; holds the names once,
    /// de-duplicated as they come, so building never needs a second full copy.
    ///
    /// Not thread-safe; a builder is meant to be filled by one parser and then built.
    public final class Builder {
        /// The hash seed used when none is given. The daemon passes a random one so that a
        /// crafted list cannot force long probe chains.
        public static let defaultSeed: UInt64 = 0x9E37_79B9_7F4A_7C15

        private var storage: Storage
        private let seed: UInt64

        /// Creates an empty builder; `expectedCount` sizes the index for that many names at
        /// once (a stored list being loaded), so that it is not rebuilt as it grows.
        public init(seed: UInt64 = defaultSeed, expectedCount: Int = 0) {
            self.seed = seed
            storage = Storage(seed: seed, expectedCount: expectedCount)
        }

        /// Names inserted so far (duplicates counted once).
        public var count: Int { storage.count }

        /// Adds a normalised name (lowercased here anyway, trailing dot removed). Returns
        /// false for a duplicate and for a name that is empty or longer than 253 bytes.
        @discardableResult
        public func insert(_ name: some StringProtocol) -> Bool {
            var text = String(name)
            return text.withUTF8 { insert(bytes: UnsafeRawBufferPointer($0)) }
        }

        /// `insert` for raw bytes.
        @discardableResult
        public func insert(bytes: UnsafeRawBufferPointer) -> Bool {
            var end = bytes.count
            if end > 0, bytes[end - 1] == dot { end -= 1 }
            guard end > 0, end <= DomainSuffixSet.maximumNameLength else { return false }
            return storage.insert(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        }

        /// Finishes the set and leaves the builder empty. With `collapsingCovered`, a name with
        /// a parent in the set (`a.reddit.com` beside `reddit.com`) is dropped: it can never be
        /// the only match, and lists are full of them. Keep them (`false`) when the most
        /// specific rule matters, as it does against allow exceptions.
        public func build(collapsingCovered: Bool = true) -> DomainSuffixSet {
            let finished = storage
            storage = Storage(seed: seed)
            if collapsingCovered { finished.collapseCovered() }
            finished.shrinkIndex()
            finished.shrinkLastChunk()
            return DomainSuffixSet(storage: finished)
        }
    }
}

/// The memory behind a set: chunks of `[length][bytes]` entries and the hash index. Mutated
/// only while a builder owns it; immutable once a `DomainSuffixSet` wraps it.
private final class Storage: @unchecked Sendable {
    static let chunkShift = 18
    static let chunkSize = 1 << chunkShift

    let seed: UInt64
    private(set) var count = 0
    private var chunks: [UnsafeMutablePointer<UInt8>] = []
    private var used: [Int] = []
    /// Slot = hash tag (high 32 bits) | blob offset + 1 (low 32 bits); 0 = empty.
    private var index: UnsafeMutablePointer<UInt64>
    private var capacity: Int

    init(seed: UInt64 = DomainSuffixSet.Builder.defaultSeed, expectedCount: Int = 0) {
        self.seed = seed
        capacity = 16
        // Bounded: a wrong count in a damaged file must not allocate gigabytes.
        while capacity < min(max(expectedCount, 0), 1 << 26) * 2 + 2 { capacity *= 2 }
        index = .allocate(capacity: capacity)
        index.initialize(repeating: 0, count: capacity)
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
        index.deallocate()
    }

    /// Bytes allocated for the last chunk (smaller than `chunkSize` once the set is built).
    private var lastChunkCapacity = chunkSize

    var allocatedBytes: Int {
        (chunks.isEmpty ? 0 : (chunks.count - 1) * Self.chunkSize + lastChunkCapacity) + capacity * 8
    }

    @inline(__always)
    private func hash(_ name: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> UInt64 {
        // FNV-1a over the lowercased bytes, seeded, then a murmur3 finaliser so that both the
        // low bits (slot) and the high bits (tag) are well mixed.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        var position = start
        while position < end {
            h = (h ^ UInt64(lower(name[position]))) &* 0x100_0000_01b3
            position += 1
        }
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    @inline(__always)
    private func entry(at offset: Int) -> UnsafeMutablePointer<UInt8> {
        chunks[offset >> Self.chunkShift] + (offset & (Self.chunkSize - 1))
    }

    @inline(__always)
    private func equals(_ offset: Int, _ name: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        let stored = entry(at: offset)
        guard Int(stored[0]) == end - start else { return false }
        var position = 0
        while position < end - start {
            if stored[1 + position] != lower(name[start + position]) { return false }
            position += 1
        }
        return true
    }

    func contains(_ name: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        let h = hash(name, start, end)
        let tag = h >> 32
        let mask = capacity - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let value = index[slot]
            if value == 0 { return false }
            if value >> 32 == tag, equals(Int(value & 0xffff_ffff) - 1, name, start, end) { return true }
            slot = (slot + 1) & mask
        }
    }

    /// Appends `name` (already without trailing dot, 1–253 bytes) unless present.
    func insert(_ name: UnsafeRawBufferPointer) -> Bool {
        if contains(name, 0, name.count) { return false }
        let size = 1 + name.count
        if chunks.isEmpty || used[used.count - 1] + size > Self.chunkSize {
            guard chunks.count < (1 << (32 - Self.chunkShift)) - 1 else { return false }
            chunks.append(.allocate(capacity: Self.chunkSize))
            used.append(0)
        }
        let last = chunks.count - 1
        let offset = last << Self.chunkShift + used[last]
        let target = chunks[last] + used[last]
        target[0] = UInt8(name.count)
        for position in 0..<name.count { target[1 + position] = lower(name[position]) }
        used[last] += size
        count += 1
        if count * 2 > capacity { resize(to: capacity * 2) } else { place(offset) }
        return true
    }

    private func place(_ offset: Int) {
        let stored = UnsafeRawBufferPointer(start: entry(at: offset) + 1, count: Int(entry(at: offset)[0]))
        let h = hash(stored, 0, stored.count)
        let mask = capacity - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while index[slot] != 0 { slot = (slot + 1) & mask }
        index[slot] = (h >> 32) << 32 | UInt64(offset + 1)
    }

    /// Rebuilds the index at `newCapacity` slots from the entries (the old index is freed first,
    /// so the two never coexist).
    private func resize(to newCapacity: Int) {
        index.deallocate()
        capacity = newCapacity
        index = .allocate(capacity: capacity)
        index.initialize(repeating: 0, count: capacity)
        forEachEntry { offset, _ in place(offset) }
    }

    /// Calls `body` with each entry's offset and bytes, in insertion order.
    func forEachEntry(_ body: (Int, UnsafeRawBufferPointer) -> Void) {
        for chunkIndex in chunks.indices {
            let chunk = chunks[chunkIndex]
            var position = 0
            while position < used[chunkIndex] {
                let length = Int(chunk[position])
                body(chunkIndex << Self.chunkShift + position, UnsafeRawBufferPointer(start: chunk + position + 1, count: length))
                position += 1 + length
            }
        }
    }

    func forEachEntryThrowing(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        for chunkIndex in chunks.indices {
            let chunk = chunks[chunkIndex]
            var position = 0
            while position < used[chunkIndex] {
                let length = Int(chunk[position])
                try body(chunkIndex << Self.chunkShift + position, UnsafeRawBufferPointer(start: chunk + position + 1, count: length))
                position += 1 + length
            }
        }
    }

    /// Drops every name that has a proper suffix in the set, compacting the entries in place.
    func collapseCovered() {
        var covered = [UInt64](repeating: 0, count: (count + 63) / 64)
        var ordinal = 0
        var dropped = 0
        forEachEntry { _, name in
            var position = 0
            while position < name.count {
                if name[position] == dot, position + 1 < name.count, contains(name, position + 1, name.count) {
                    covered[ordinal >> 6] |= 1 << UInt64(ordinal & 63)
                    dropped += 1
                    break
                }
                position += 1
            }
            ordinal += 1
        }
        guard dropped > 0 else { return }
        // Entries only ever move towards the start, and a chunk boundary that a kept entry
        // skipped at its old place is never further on at its new one, so copying forward in
        // place is safe.
        var writeChunk = 0
        var writeUsed = 0
        ordinal = 0
        for chunkIndex in chunks.indices {
            var position = 0
            while position < used[chunkIndex] {
                let size = 1 + Int(chunks[chunkIndex][position])
                if covered[ordinal >> 6] & (1 << UInt64(ordinal & 63)) == 0 {
                    if writeUsed + size > Self.chunkSize {
                        used[writeChunk] = writeUsed
                        writeChunk += 1
                        writeUsed = 0
                    }
                    UnsafeMutableRawPointer(chunks[writeChunk] + writeUsed).copyMemory(  // memmove: may overlap
                        from: chunks[chunkIndex] + position, byteCount: size)
                    writeUsed += size
                }
                position += size
                ordinal += 1
            }
        }
        used[writeChunk] = writeUsed
        for chunk in chunks[(writeChunk + 1)...] { chunk.deallocate() }
        chunks.removeSubrange((writeChunk + 1)...)
        used.removeSubrange((writeChunk + 1)...)
        count -= dropped
        resize(to: capacity)
    }

    /// Gives the last chunk back what it does not use: most sets (a profile's ten domains, its
    /// exceptions) fit in a few hundred bytes, not 256 KiB. Offsets stay valid: entries do not move.
    func shrinkLastChunk() {
        guard let last = chunks.indices.last, used[last] < Self.chunkSize else { return }
        let size = max(1, used[last])
        let smaller = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        smaller.update(from: chunks[last], count: used[last])
        chunks[last].deallocate()
        chunks[last] = smaller
        lastChunkCapacity = size
    }

    /// Gives the index the smallest power-of-two size at a load of at most one half.
    func shrinkIndex() {
        var wanted = 16
        while wanted < count * 2 { wanted *= 2 }
        if wanted != capacity { resize(to: wanted) }
    }
}
