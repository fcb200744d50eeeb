import Foundation
import Glibc
import LockCore
import LockPlatform

/// The daemon's own compact form of one imported blocklist (`NAME.VERSION.list` in the lists
/// directory): the parsed names, not the text they came from, so that loading a list at
/// start-up reads about 21 bytes per name and never parses again.
///
/// ```
/// "SLBLIST1"                        8 bytes
/// header length                     UInt32, little-endian
/// header                            JSON of BlocklistInfo (name, version, source, import time, report)
/// block count, exception count      UInt32 each
/// names                             [length: UInt8][bytes] each: block names, then exceptions
/// checksum                          UInt64: FNV-1a of every byte before it
/// ```
///
/// Names are stored as the set holds them (lowercase, no trailing dot, 1–253 bytes), in the
/// order the set keeps them. The version is a digest of the names alone, so importing the same
/// list again gives the same version.
public enum BlocklistFile {
    static let magic = Array("SLBLIST1".utf8)
    /// The most names (block names and exceptions together) a list may hold.
    public static let maximumNames = 8_000_000
    static let maximumHeaderBytes = 1 << 20

    /// The version of a list holding these names: 16 hex digits of a 64-bit FNV-1a digest.
    public static func version(block: DomainSuffixSet, allow: DomainSuffixSet) -> String {
        var digest = FNV64()
        block.forEachName { name in
            digest.add(UInt8(name.count))
            digest.add(name)
        }
        digest.add(0xff)
        allow.forEachName { name in
            digest.add(UInt8(name.count))
            digest.add(name)
        }
        let hex = String(digest.value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Writes `list` to `path` atomically (a crash leaves the old file or the new one).
    public static func write(_ list: Blocklist, to path: String) throws(SystemError) {
        let header: [UInt8]
        do { header = Array(try makeEncoder().encode(list.info)) } catch {
            throw SystemError("encode the header of", path, errno: EINVAL)
        }
        try AtomicFile.write(to: path, mode: 0o644) { (sink: AtomicFile.Sink) throws(SystemError) in
            var digest = FNV64()
            func emit(_ bytes: [UInt8]) throws(SystemError) {
                digest.add(bytes)
                try sink.write(bytes)
            }
            try emit(magic)
            try emit(littleEndian(UInt32(header.count)))
            try emit(header)
            try emit(littleEndian(UInt32(list.block.count)) + littleEndian(UInt32(list.allow.count)))
            var failure: SystemError?
            for set in [list.block, list.allow] {
                set.forEachName { name in
                    guard failure == nil else { return }
                    do throws(SystemError) {
                        digest.add(UInt8(name.count))
                        try sink.write(byte: UInt8(name.count))
                        digest.add(name)
                        try sink.write(name)
                    } catch { failure = error }
                }
            }
            if let failure { throw failure }
            try sink.write(littleEndian(digest.value))
        }
    }

    /// Reads the list at `path` into suffix sets (built with `seed`), checking everything: the
    /// magic, the header, every name, no duplicates, nothing after the checksum, and the checksum.
    /// Reads in 1 MiB pieces; the sets are the only full copy.
    public static func read(_ path: String, seed: UInt64 = DomainSuffixSet.Builder.defaultSeed) throws(FileProblem) -> Blocklist {
        func problem(_ message: String) -> FileProblem { FileProblem(file: path, message: message) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw problem(SystemError("open", path).description) }
        defer { close(fd) }
        var reader = ChunkReader(fd: fd)
        var digest = FNV64()
        func take(_ count: Int) throws(FileProblem) -> [UInt8] {
            let bytes: [UInt8]?
            do throws(SystemError) { bytes = try reader.take(count) } catch { throw problem(error.description) }
            guard let bytes else { throw problem("the file ends too early") }
            digest.add(bytes)
            return bytes
        }
        guard try take(magic.count) == magic else { throw problem("not a blocklist file of simplylockd (bad magic)") }
        let headerLength = Int(readUInt32(try take(4)))
        guard headerLength <= maximumHeaderBytes else { throw problem("the header is \(headerLength) bytes long") }
        let info: BlocklistInfo
        do { info = try makeDecoder().decode(BlocklistInfo.self, from: Data(try take(headerLength))) } catch let error as FileProblem {
            throw error
        } catch {
            throw problem("the header cannot be read: \(error)")
        }
        let counts = try take(8)
        let blockCount = Int(readUInt32(counts[0..<4]))
        let allowCount = Int(readUInt32(counts[4..<8]))
        guard blockCount + allowCount <= maximumNames else { throw problem("it claims \(blockCount + allowCount) names") }
        var sets: [DomainSuffixSet] = []
        for count in [blockCount, allowCount] {
            let builder = DomainSuffixSet.Builder(seed: seed, expectedCount: count)
            var ordinal = 0
            while ordinal < count {
                ordinal += 1
                let failure: String?
                do throws(SystemError) {
                    failure = try readName(&reader, &digest, into: builder, ordinal: ordinal)
                } catch {
                    throw problem(error.description)
                }
                if let failure { throw problem(failure) }
            }
            sets.append(builder.build(collapsingCovered: false))
        }
        let expected = digest.value
        let trailer = try take(8)
        guard readUInt64(trailer) == expected else { throw problem("the checksum does not match: the file is damaged") }
        let extra: [UInt8]?
        do throws(SystemError) { extra = try reader.take(1) } catch { throw problem(error.description) }
        guard extra == nil else { throw problem("bytes follow the checksum") }
        let reference = BlocklistReference(name: info.name, version: info.version)
        guard BlocklistReference.isVersion(info.version), version(block: sets[0], allow: sets[1]) == info.version else {
            throw problem("the names do not match the version \(info.version) the header gives")
        }
        guard info.names == sets[0].count, info.exceptions == sets[1].count else {
            throw problem(
                "the header counts \(info.names) names and \(info.exceptions) exceptions, the file holds \(sets[0].count) and \(sets[1].count)"
            )
        }
        return Blocklist(reference: reference, block: sets[0], allow: sets[1], info: info)
    }

    /// Reads one `[length][bytes]` entry into `builder`; returns what is wrong with it, if anything.
    private static func readName(
        _ reader: inout ChunkReader, _ digest: inout FNV64, into builder: DomainSuffixSet.Builder,
        ordinal: Int
    ) throws(SystemError) -> String? {
        guard let length = try reader.withNext(1, { Int($0[0]) }) else { return "the file ends too early" }
        digest.add(UInt8(length))
        guard length >= 1, length <= DomainSuffixSet.maximumNameLength else { return "name \(ordinal) is \(length) bytes long" }
        let outcome = try reader.withNext(length) { (name: UnsafeRawBufferPointer) -> String? in
            digest.add(name)
            guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !(0x41...0x5a).contains($0) }) else {
                return "name \(ordinal) has bytes a stored name cannot have"
            }
            return builder.insert(bytes: name) ? nil : "name \(ordinal) is listed twice"
        }
        guard let outcome else { return "the file ends too early" }
        return outcome
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func readUInt32(_ bytes: some Collection<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func readUInt64(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// FNV-1a, 64 bits: a checksum against damage and a version digest, not a defence against
/// someone forging files (only root writes the lists directory).
struct FNV64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { add(byte) }
    }
}

/// Reads a file in 1 MiB pieces and hands out the next bytes, across piece boundaries.
private struct ChunkReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false

    init(fd: Int32) { self.fd = fd }

    /// Makes `count` bytes available; false when the file ends first.
    private mutating func ensure(_ count: Int) throws(SystemError) -> Bool {
        while buffer.count - position < count {
            if atEnd { return false }
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            let want = max(1 << 20, count)
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: want))
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + old, want) }
            if n < 0 {
                buffer.removeLast(want)
                if errno == EINTR { continue }
                throw SystemError("read", "blocklist file")
            }
            buffer.removeLast(want - n)
            if n == 0 { atEnd = true }
        }
        return true
    }

    /// The next `count` bytes, or nil at the end of the file.
    mutating func take(_ count: Int) throws(SystemError) -> [UInt8]? {
        guard try ensure(count) else { return nil }
        defer { position += count }
        return Array(buffer[position..<(position + count)])
    }

    /// Calls `body` with the next `count` bytes in place, or returns nil at the end of the file.
    mutating func withNext<T>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> T) throws(SystemError) -> T? {
        guard try ensure(count) else { return nil }
        defer { position += count }
        let start = position
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
    }
}
