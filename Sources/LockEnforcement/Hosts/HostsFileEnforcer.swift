import Crypto
import Foundation
import Glibc
import LockCore
import LockPlatform
import Logging
import Synchronization

/// Enforces blocks in the hosts file's managed section.
///
/// Every apply and every restore computes the whole file from the user's part and the desired
/// names, and writes only if the bytes (or the file's type, mode or owner) differ, so repeated
/// or concurrent triggers (our own writes wake the watch too) converge without loops.
///
/// The user's part is remembered as it was the last time the file was read in a sane state,
/// so that tampering never costs the user their own lines:
/// - a regular file is sane, and its part outside the section becomes the known user part,
///   edits included — except a user part that is empty (or only blank lines) while a section
///   is expected and the known part was not: that is a truncation, and the known part comes
///   back;
/// - a missing file, a symbolic link (its target is never read), a directory (moved aside to
///   `hosts.simplylock-moved-TIME`, never deleted), a FIFO or a device node is not sane: the
///   file is rebuilt from the known user part while a section is expected, and left alone
///   otherwise.
/// While a block is in force the known user part is also kept at `userCopyPath` (written
/// atomically, only when it changes; removed when nothing is blocked), so that it survives a
/// daemon restart. The file written is always a regular file, mode 0644, owned by root when
/// running as root: every user's resolver must be able to read it, and only root change it.
public actor HostsFileEnforcer: Enforcer {
    public nonisolated let name = "hosts"
    /// The managed file.
    public nonisolated let path: String
    /// Names added to every non-empty block, such as Firefox's DoH canary
    /// `use-application-dns.net`.
    public nonisolated let alwaysWithBlock: [String]
    /// Where the user's part of the file is kept while a block is in force (nil: in memory
    /// only, lost at restart).
    public nonisolated let userCopyPath: String?
    /// Mode and owner of the file written.
    public nonisolated let attributes: AtomicFile.Attributes
    /// The most blocked names the section lists (`hosts_max_names`); beyond it the first ones
    /// in sorted order, so that the section stays the same from one apply to the next.
    public nonisolated let maxNames: Int
    private let logger: Logger
    /// The block's names the section lists: the block's own list, shared rather than copied,
    /// or its first `maxNames` when the cap leaves some out.
    var listed = NameList()
    /// The always-listed names the block does not list itself, listed after it.
    var extra: [String] = []
    /// The block's names (sorted) when the cap left some out of the section: the list the
    /// daemon's desired state holds, shared rather than copied.
    var capped: NameList?
    var lastApplied: Date?
    var lastError: String?
    var restores = 0
    var lastRepair: String?
    var lastMethod: AtomicFile.Method?
    var inForce = false
    /// The user's part at the last sane reading, and where the section stood in it.
    private var knownUser: [UInt8]?
    private var knownOffset: Int?
    /// What the copy at `userCopyPath` holds, nil when there is none.
    private var copiedUser: [UInt8]?
    /// True when the last file written had a section.
    private var sectionWritten = false
    /// The names of the sections written since the start: lines of our shape listing only
    /// these are ours wherever they turn up. The block's names usually share `listed`'s
    /// storage; the always-listed ones are the few in `writtenExtra`.
    private var writtenNames = NameList()
    private var writtenExtra = Set<String>()
    /// The SHA-256 of the file's bytes when last written or found right for `desired`.
    private var verified: SHA256.Digest?
    private var started = false

    /// Creates an enforcer for the hosts file at `path`.
    public init(path: String, alwaysWithBlock: [String] = [], userCopyPath: String? = nil, maxNames: Int = 20_000, logger: Logger) {
        self.path = path
        self.maxNames = max(1, maxNames)
        self.alwaysWithBlock = alwaysWithBlock
        self.userCopyPath = userCopyPath
        attributes = AtomicFile.Attributes(mode: 0o644, owner: geteuid() == 0 ? (user: 0, group: 0) : nil)
        self.logger = logger
    }

    public func apply(_ block: DesiredBlock) async throws {
        (listed, extra) = names(for: block)
        if block.blocksNetwork, block.domains.count > maxNames {
            capped = block.domains
            logger.notice(
                "the hosts section lists only the first names of the block (hosts_max_names)",
                metadata: ["listed": "\(maxNames)", "names": "\(block.domains.count)"])
        } else {
            capped = nil
        }
        do {
            try sync()
            lastApplied = Date()
            lastError = nil
        } catch {
            lastError = error.description
            inForce = false
            throw error
        }
    }

    /// The names the section lists for `block`: its names, plus the always-listed ones while
    /// anything is blocked on the network (an address-only or allowlist block included; an
    /// apps-only block is not the hosts file's business).
    /// Beyond `maxNames` only the first names (in the block's sorted order) are listed.
    private nonisolated func names(for block: DesiredBlock) -> (listed: NameList, extra: [String]) {
        guard block.blocksNetwork else { return (NameList(), []) }
        let listed = NameList(first: maxNames, of: block.domains)
        return (listed, alwaysWithBlock.filter { !listed.contains($0) })
    }

    /// The names the section lists, in its order.
    var desired: [String] { Array(listed) + extra }
    /// True when the section lists anything.
    var blocking: Bool { !listed.isEmpty || !extra.isEmpty }
    /// How many names the section lists.
    var desiredCount: Int { listed.count + extra.count }
    func isListed(_ name: String) -> Bool { listed.contains(name) || extra.contains(name) }

    public func watch() async {
        // A watch that cannot start (the directory missing or unreadable for a moment) is
        // retried: returning would leave the file unguarded until the daemon restarts.
        while !Task.isCancelled {
            await watchOnce()
            try? await Task.sleep(for: HostsFileEnforcer.watchRetry)
        }
    }

    /// How long to wait before trying again to watch a file that could not be watched.
    static let watchRetry: Duration = .seconds(5)

    private func watchOnce() async {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let generation = Atomic(0)
        let watcher: FileWatcher
        do {
            try AtomicFile.makeDirectories((path as NSString).deletingLastPathComponent)
            watcher = try FileWatcher(path: path) {
                generation.add(1, ordering: .relaxed)
                continuation.yield()
            }
        } catch {
            lastError = "cannot watch: \(error)"
            logger.error("cannot watch the hosts file; trying again", metadata: ["path": "\(path)", "error": "\(error)"])
            return
        }
        defer { watcher.stop() }
        // Anything that happened while not watching.
        restoreIfChanged()
        await withTaskCancellationHandler {
            for await _ in changes {
                // Wait until the file has been quiet for a moment: an editor that truncates
                // and then writes must finish before we read, or we would replace the file
                // under it and its write would land in the old, unlinked inode.
                var seen = generation.load(ordering: .relaxed)
                repeat {
                    try? await Task.sleep(for: HostsFileEnforcer.settleTime)
                    let now = generation.load(ordering: .relaxed)
                    if now == seen { break }
                    seen = now
                } while !Task.isCancelled
                restoreIfChanged()
            }
        } onCancel: {
            continuation.finish()
        }
    }

    /// How long the file must stay unchanged before it is checked.
    static let settleTime: Duration = .milliseconds(150)

    /// Re-applies the last desired state if the file no longer matches it.
    func restoreIfChanged() {
        // Before the first apply there is no desired state to restore.
        guard lastApplied != nil else { return }
        do {
            if let repair = try sync(unlessVerified: true) {
                restores += 1
                lastRepair = repair
                lastError = nil
                logger.notice(
                    "hosts file was changed from outside; restored",
                    metadata: ["path": "\(path)", "names": "\(desiredCount)", "repair": "\(repair)"])
            }
        } catch {
            lastError = error.description
            logger.error("cannot restore the hosts file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// Makes the file match `desired`. Returns what had to be repaired (`content`,
    /// `section`, `truncated`, `deleted`, `symlink`, `directory`, `special file`, `mode`), or
    /// nil when the file was already right.
    ///
    /// With `unlessVerified` (a change event), a regular file with the bytes last written or
    /// found right, and the right mode and owner, is left alone without being parsed: the
    /// event of our own write, mostly. Parsing a 100 000-name file again cost 30 ms and left
    /// 10 MB of freed heap behind.
    @discardableResult
    private func sync(unlessVerified: Bool = false) throws(SystemError) -> String? {
        if !started { start() }
        if unlessVerified, let verified, case .regular(let bytes, let status) = try AtomicFile.entry(at: path),
            !blocking || attributes.match(status), SHA256.hash(data: bytes) == verified
        {
            return nil
        }
        let lastVerified = verified
        verified = nil
        defer { keepCopy() }
        let blocking = blocking
        var document: HostsDocument
        var current: (bytes: [UInt8], status: stat)?
        var repair: String?

        switch try AtomicFile.entry(at: path) {
        case .regular(let bytes, let status):
            current = (bytes, status)
            if let lastVerified, let knownUser, SHA256.hash(data: bytes) == lastVerified {
                // The file as it was last written or found right: its parts are the known ones,
                // no need to parse 100 000 names to find them again.
                document = HostsDocument(userBytes: knownUser, sectionOffset: knownOffset)
                repair = "content"
                break
            }
            // With what the user's part was, where a section is expected (or turns out to be).
            let ownNames = { [listed, extra, writtenNames, writtenExtra] (name: String) in
                listed.contains(name) || extra.contains(name) || writtenNames.contains(name) || writtenExtra.contains(name)
            }
            if let knownUser, blocking || sectionWritten {
                document = HostsDocument(bytes: bytes, knownUser: knownUser, ownNames: ownNames)
            } else {
                document = HostsDocument(bytes: bytes)
                if let knownUser, document.hadSection {
                    document = HostsDocument(bytes: bytes, knownUser: knownUser, ownNames: ownNames)
                }
            }
            let expectSection = blocking || sectionWritten || document.hadSection
            if expectSection, HostsDocument.isBlank(document.userBytes), let knownUser, !HostsDocument.isBlank(knownUser) {
                // Emptied or truncated while a block is in force: tampering, not an edit.
                document = HostsDocument(userBytes: knownUser, sectionOffset: knownOffset)
                repair = "truncated"
            } else {
                repair = document.isDamaged ? "section" : "content"
                remember(document)
            }
        case .missing:
            guard blocking || sectionWritten else {
                remember(HostsDocument(userBytes: []))
                return nil
            }
            document = HostsDocument(userBytes: knownUser ?? [], sectionOffset: knownOffset)
            repair = "deleted"
        case .symbolicLink:
            guard blocking || sectionWritten else { return nil }
            if knownUser == nil, let adopted = systemLinkTarget() {
                document = HostsDocument(bytes: adopted, knownUser: nil)
                remember(document)
            } else {
                // Never read through: a link's target (a root-only file, say) must not be
                // copied into a file every user can read.
                document = HostsDocument(userBytes: knownUser ?? [], sectionOffset: knownOffset)
            }
            repair = "symlink"
        case .other:
            guard blocking || sectionWritten else { return nil }
            document = HostsDocument(userBytes: knownUser ?? [], sectionOffset: knownOffset)
            repair = "special file"
        case .directory:
            guard blocking || sectionWritten else { return nil }
            let moved = try AtomicFile.moveAside(path, label: "simplylock-moved")
            logger.warning(
                "a directory stood in place of the hosts file; moved aside, the file is rebuilt",
                metadata: ["path": "\(path)", "moved": "\(moved)"])
            document = HostsDocument(userBytes: knownUser ?? [], sectionOffset: knownOffset)
            repair = "directory"
        }

        let wanted = document.rendered(names: desired)
        inForce = true
        if let current, current.bytes == wanted {
            // The right bytes: only the mode or owner may need repair (after chmod 000 no
            // other user's resolver can read the file, so nothing would be blocked for them).
            guard blocking, !attributes.match(current.status) else {
                verified = SHA256.hash(data: wanted)
                return nil
            }
            try AtomicFile.setAttributes(attributes, of: path)
            verified = SHA256.hash(data: wanted)
            return "mode"
        }
        if current == nil, !blocking, HostsDocument.isBlank(wanted) { return nil }
        lastMethod = try AtomicFile.write(wanted, to: path, attributes: attributes, inPlaceFallback: true)
        verified = SHA256.hash(data: wanted)
        sectionWritten = blocking
        if !listed.isSubset(of: writtenNames) { writtenNames = NameList.union(writtenNames, listed) }
        writtenExtra.formUnion(extra)
        return repair
    }

    /// The content behind a symbolic link at `path`, when this is the first reading and the
    /// link is the system's own arrangement (NixOS links /etc/hosts into its store): a
    /// regular file owned by root and readable by everyone, so nothing private is copied.
    private func systemLinkTarget() -> [UInt8]? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == 0,
            status.st_mode & 0o004 != 0
        else { return nil }
        guard let bytes = try? AtomicFile.read(path) else { return nil }
        logger.notice(
            "the hosts file is a symbolic link; its target's content is kept in the regular file that replaces it",
            metadata: ["path": "\(path)"])
        return bytes
    }

    /// Takes the user's part of a sane reading as the one to restore from now on.
    private func remember(_ document: HostsDocument) {
        knownUser = document.userBytes
        knownOffset = document.hadSection ? document.sectionOffset : nil
    }

    /// Once, before the first reading: temporary files a crash left behind go, and the copy
    /// of the user's part saved before a restart is loaded.
    private func start() {
        started = true
        let directory = (path as NSString).deletingLastPathComponent
        for leftover in AtomicFile.removeLeftovers(in: directory, for: (path as NSString).lastPathComponent) {
            logger.notice("removed a temporary file left by a crash", metadata: ["path": "\(leftover)"])
        }
        guard let userCopyPath else { return }
        let copyDirectory = (userCopyPath as NSString).deletingLastPathComponent
        for leftover in AtomicFile.removeLeftovers(in: copyDirectory, for: (userCopyPath as NSString).lastPathComponent) {
            logger.notice("removed a temporary file left by a crash", metadata: ["path": "\(leftover)"])
        }
        do {
            if case .regular(let bytes, _) = try AtomicFile.entry(at: userCopyPath) {
                knownUser = bytes
                copiedUser = bytes
            }
        } catch {
            logger.warning(
                "cannot read the saved copy of the hosts file's user part",
                metadata: ["path": "\(userCopyPath)", "error": "\(error)"])
        }
    }

    /// Keeps the copy at `userCopyPath` equal to the known user part while a block is in
    /// force, and removes it when nothing is blocked. A failure is logged, never fatal: the
    /// copy only matters if the file is damaged while the daemon is down.
    private func keepCopy() {
        guard let userCopyPath else { return }
        if !blocking {
            guard copiedUser != nil else { return }
            if unlink(userCopyPath) == 0 || errno == ENOENT {
                copiedUser = nil
                AtomicFile.syncDirectory((userCopyPath as NSString).deletingLastPathComponent)
            }
            return
        }
        guard let knownUser, knownUser != copiedUser else { return }
        do {
            try AtomicFile.makeDirectories((userCopyPath as NSString).deletingLastPathComponent)
            try AtomicFile.write(knownUser, to: userCopyPath, attributes: AtomicFile.Attributes(mode: 0o600))
            copiedUser = knownUser
        } catch {
            logger.warning(
                "cannot save a copy of the hosts file's user part",
                metadata: ["path": "\(userCopyPath)", "error": "\(error)"])
        }
    }
}
