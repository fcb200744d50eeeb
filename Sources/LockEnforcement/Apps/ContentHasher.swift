import CLinux
import Crypto
import Glibc
import LockPlatform
import Synchronization

/// Content signatures of executables, for strict blocks: a copy of a blocked binary has a new
/// inode but the same content (SHA-256), or nearly the same (content-defined chunks, see
/// `ContentSignature`). Signatures are cached by (device, inode, size, modification time), so a
/// file is read once until it changes.
///
/// swift-crypto (BoringSSL underneath) rather than a hand-written SHA-256: it uses the CPU's
/// SHA extensions, about 1.5 GB/s here, which matters when a 100 MB game binary is hashed while
/// its exec waits. The chunker is a few lines of C (`clinux_chunker_feed`), fast at -O0 as well.
public final class ContentHasher: Sendable {
    /// What a cached signature is valid for.
    public struct Key: Sendable, Hashable {
        /// The file.
        public var identity: FileIdentity
        /// Its size.
        public var size: Int64
        /// Its modification time, nanoseconds since the epoch.
        public var modified: Int64

        /// The key for a file's status.
        public init(_ status: stat) {
            identity = FileIdentity(status)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec)
        }
    }

    private struct Cache {
        var entries: [Key: ContentSignature] = [:]
        var chunks = 0
    }

    /// Entries kept before the cache starts over (a bound, not an expected size).
    static let capacity = 4096
    /// Chunk fingerprints kept before the cache starts over (16 MiB of them; about 4 GB of files).
    static let chunkCapacity = 2 << 20

    private let cache = Mutex(Cache())
    private let computed = Atomic<Int>(0)

    /// Creates an empty cache.
    public init() {}

    /// How many files have been hashed (cache misses).
    public var computations: Int { computed.load(ordering: .relaxed) }

    /// The cached digest for `key`, if any.
    public func cached(_ key: Key) -> ContentDigest? { cachedSignature(key)?.digest }

    /// The cached signature for `key`, if any.
    public func cachedSignature(_ key: Key) -> ContentSignature? { cache.withLock { $0.entries[key] } }

    /// The digest of the file open on `fd`; see `signature(fd:key:deadline:)`.
    public func digest(fd: Int32, key: Key, deadline: ContinuousClock.Instant? = nil) -> ContentDigest? {
        signature(fd: fd, key: key, deadline: deadline)?.digest
    }

    /// Reads the file open on `fd` (with `pread`, so the descriptor's offset and its origin do
    /// not matter) into its signature, giving up (nil) after `deadline`.
    public func signature(fd: Int32, key: Key, deadline: ContinuousClock.Instant? = nil) -> ContentSignature? {
        if let known = cachedSignature(key) { return known }
        var hasher = SHA256()
        var chunker = clinux_chunker()
        clinux_chunker_reset(&chunker)
        var chunks = Set<UInt64>()
        let bufferSize = 1 << 20
        var fingerprints = [UInt64](repeating: 0, count: bufferSize / Int(CLINUX_CHUNK_MIN) + 1)
        let read = FileBlocks.read(fd: fd, blockSize: bufferSize) { block in
            hasher.update(bufferPointer: block)
            let found = fingerprints.withUnsafeMutableBufferPointer { out in
                clinux_chunker_feed(&chunker, block.assumingMemoryBound(to: UInt8.self).baseAddress, block.count, out.baseAddress)
            }
            chunks.formUnion(fingerprints[0..<found])
            return deadline.map { ContinuousClock.now <= $0 } ?? true
        }
        guard let size = read else { return nil }
        var last: UInt64 = 0
        if clinux_chunker_finish(&chunker, &last) == 1 { chunks.insert(last) }
        let signature = ContentSignature(digest: ContentDigest(Array(hasher.finalize())), chunks: chunks, size: size)
        computed.add(1, ordering: .relaxed)
        cache.withLock { cache in
            if cache.entries.count >= Self.capacity || cache.chunks + chunks.count > Self.chunkCapacity {
                cache.entries.removeAll(keepingCapacity: true)
                cache.chunks = 0
            }
            cache.entries[key] = signature
            cache.chunks += chunks.count
        }
        return signature
    }

    /// Hashes the file at `path`; nil if it cannot be read.
    public func digest(path: String) -> (ContentDigest, Key)? {
        signature(path: path).map { ($0.0.digest, $0.1) }
    }

    /// The signature of the file at `path`; nil if it cannot be read.
    public func signature(path: String) -> (ContentSignature, Key)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let key = Key(status)
        return signature(fd: fd, key: key).map { ($0, key) }
    }
}

/// A SHA-256 digest.
public struct ContentDigest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var description: String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
