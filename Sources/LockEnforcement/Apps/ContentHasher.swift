import Crypto
import Glibc
import LockPlatform
import Synchronization

/// SHA-256 of executables, for strict blocks: a copy of a blocked binary has a new inode but
/// the same content. Digests are cached by (device, inode, size, modification time), so a file
/// is hashed once until it changes.
///
/// swift-crypto (BoringSSL underneath) rather than a hand-written SHA-256: it uses the CPU's
/// SHA extensions, about 1.5 GB/s here, which matters when a 100 MB game binary is hashed while
/// its exec waits.
public final class ContentHasher: Sendable {
    /// What a cached digest is valid for.
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

    /// Entries kept before the cache starts over (a bound, not an expected size).
    static let capacity = 4096

    private let cache = Mutex<[Key: ContentDigest]>([:])
    private let computed = Atomic<Int>(0)

    /// Creates an empty cache.
    public init() {}

    /// How many files have been hashed (cache misses).
    public var computations: Int { computed.load(ordering: .relaxed) }

    /// The cached digest for `key`, if any.
    public func cached(_ key: Key) -> ContentDigest? { cache.withLock { $0[key] } }

    /// Hashes the file open on `fd` (read with `pread`, so the descriptor's offset and its
    /// origin do not matter), giving up (nil) after `deadline`.
    public func digest(fd: Int32, key: Key, deadline: ContinuousClock.Instant? = nil) -> ContentDigest? {
        if let known = cached(key) { return known }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += off_t(count)
            if let deadline, ContinuousClock.now > deadline { return nil }
        }
        let digest = ContentDigest(Array(hasher.finalize()))
        computed.add(1, ordering: .relaxed)
        cache.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = digest
        }
        return digest
    }

    /// Hashes the file at `path`; nil if it cannot be read.
    public func digest(path: String) -> (ContentDigest, Key)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let key = Key(status)
        return digest(fd: fd, key: key).map { ($0, key) }
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
