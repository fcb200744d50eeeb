import CLinux
import Crypto
import Glibc
import LockCore
import LockPlatform
import Synchronization

/// Programs that run other programs without exec (the dynamic loader, interpreters),
/// recognised by what they are rather than what they are called: a copy of
/// `ld-linux-x86-64.so.2`, `python3` or `dash` that root put under another name
/// (`/opt/tools/runner`, by an administrator or a package) runs a blocked game as well as the
/// original. `ExecRules.mayRunOthers` asks this after the name and ownership checks.
///
/// - The loader by its ELF header (`clinux_elf_is_loader`): no PT_INTERP and a DT_SONAME of
///   `ld-*.so*`. A few kilobytes read, whatever the file's size.
/// - An interpreter by content: the same bytes (SHA-256) as one of the machine's interpreters,
///   the ELF files on the search path that `ProgramNames` names. Only a file of exactly one of
///   their sizes is read, so almost every program costs a `stat`.
///
/// Verdicts are cached by device, inode, size and modification time, so a program is examined
/// once until it changes; the interpreters are found again at every `refresh` (each apply).
public final class ProgramRunners: Sendable {
    /// The one the guard uses.
    public static let machine = ProgramRunners()

    /// Where the machine's interpreters are looked for.
    public static let searchPath = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// Verdicts kept before the cache starts over (a bound, not an expected size).
    static let capacity = 4096

    private struct Known {
        /// Paths of the machine's interpreters, by size.
        var bySize: [Int64: [String]] = [:]
        /// Their identities.
        var identities: Set<FileIdentity> = []
        /// Their digests, by what they are valid for.
        var digests: [ContentHasher.Key: ContentDigest] = [:]
        /// Programs examined so far: true for a loader or a copy of an interpreter.
        var verdicts: [ContentHasher.Key: Bool] = [:]
        var found = false
    }

    private let directories: [String]
    private let state = Mutex(Known())
    private let reads = Atomic<Int>(0)

    /// Recognises the interpreters found in `directories`.
    public init(directories: [String] = ProgramRunners.searchPath) {
        self.directories = directories
    }

    /// Programs examined by reading them (cache misses), for status and benchmarks.
    public var examined: Int { reads.load(ordering: .relaxed) }

    /// The sizes of the machine's interpreters (the sentinel, which cannot compare content,
    /// treats a program of one of these sizes as an interpreter).
    public var sizes: Set<Int64> {
        findIfNeeded()
        return state.withLock { Set($0.bySize.keys) }
    }

    /// Finds the machine's interpreters again (a `readdir` and `stat`s of the search path) and
    /// forgets what was decided: an interpreter upgraded since is another file.
    public func refresh() {
        var bySize: [Int64: [String]] = [:]
        var identities: Set<FileIdentity> = []
        for directory in directories {
            guard let stream = opendir(directory) else { continue }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = DirectoryEntry.name(entry)
                guard name != ".", name != "..", ProgramNames.isInterpreter(name) else { continue }
                var status = stat()
                let path = directory + "/" + name
                guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                guard identities.insert(FileIdentity(status)).inserted else { continue }
                bySize[Int64(status.st_size), default: []].append(path)
            }
        }
        state.withLock { known in
            known = Known(bySize: bySize, identities: identities, found: true)
        }
    }

    private func findIfNeeded() {
        if !state.withLock(\.found) { refresh() }
    }

    /// True when the program at `path` is a dynamic loader or a copy of an interpreter.
    public func recognises(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && recognises(path, status: status)
    }

    /// True when the program at `path` (a file or `/proc/PID/exe`), whose status is `status`,
    /// is a dynamic loader or a copy of one of the machine's interpreters.
    public func recognises(_ path: String, status: stat) -> Bool {
        findIfNeeded()
        let key = ContentHasher.Key(status)
        let (known, candidates) = state.withLock { known -> (Bool?, [String]) in
            if known.identities.contains(key.identity) { return (true, []) }
            return (known.verdicts[key], known.bySize[key.size] ?? [])
        }
        if let known { return known }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        // Unreadable now (gone, or a race with its exit): decided again next time.
        guard fd >= 0 else { return false }
        defer { close(fd) }
        reads.add(1, ordering: .relaxed)
        var verdict = clinux_elf_is_loader(fd) == 1
        if !verdict, !candidates.isEmpty, let digest = Self.digest(fd: fd) {
            verdict = candidates.contains { interpreterDigest($0) == digest }
        }
        state.withLock { known in
            if known.verdicts.count >= Self.capacity { known.verdicts.removeAll(keepingCapacity: true) }
            known.verdicts[key] = verdict
        }
        return verdict
    }

    /// The digest of interpreter `path`, cached while it stays the same file.
    private func interpreterDigest(_ path: String) -> ContentDigest? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let key = ContentHasher.Key(status)
        if let digest = state.withLock({ $0.digests[key] }) { return digest }
        guard let digest = Self.digest(fd: fd) else { return nil }
        state.withLock { $0.digests[key] = digest }
        return digest
    }

    /// SHA-256 of the file open on `fd` (pread: the offset does not matter).
    static func digest(fd: Int32) -> ContentDigest? {
        var hasher = SHA256()
        let read = FileBlocks.read(fd: fd, blockSize: 1 << 16) { block in
            hasher.update(bufferPointer: block)
            return true
        }
        guard read != nil else { return nil }
        return ContentDigest(Array(hasher.finalize()))
    }
}
