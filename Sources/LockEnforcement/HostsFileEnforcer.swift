import Foundation
import Glibc
import LockCore
import LockPlatform
import Logging
import Synchronization

/// Enforces blocks in the hosts file's managed section.
///
/// Every apply and every restore computes the whole file from the user's part and the desired
/// names, and writes only if the bytes differ, so repeated or concurrent triggers (our own
/// writes wake the watch too) converge without loops.
public actor HostsFileEnforcer: Enforcer {
    public nonisolated let name = "hosts"
    /// The managed file.
    public nonisolated let path: String
    /// Names added to every non-empty block, such as Firefox's DoH canary
    /// `use-application-dns.net`.
    public nonisolated let alwaysWithBlock: [String]
    private let logger: Logger
    private var desired: [String] = []
    private var lastApplied: Date?
    private var lastError: String?
    private var restores = 0
    private var lastMethod: AtomicFile.Method?
    private var inForce = false

    /// Creates an enforcer for the hosts file at `path`.
    public init(path: String, alwaysWithBlock: [String] = [], logger: Logger) {
        self.path = path
        self.alwaysWithBlock = alwaysWithBlock
        self.logger = logger
    }

    public func apply(_ block: DesiredBlock) async throws {
        desired = names(for: block)
        do {
            _ = try sync()
            lastApplied = Date()
            lastError = nil
        } catch {
            lastError = error.description
            inForce = false
            throw error
        }
    }

    /// The names the section lists for `block`: its names, plus the always-listed ones while
    /// anything at all is blocked (an address-only or allowlist block included).
    public nonisolated func names(for block: DesiredBlock) -> [String] {
        block.isEmpty ? [] : block.domains + alwaysWithBlock.filter { !block.domains.contains($0) }
    }

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
            if try sync() {
                restores += 1
                lastError = nil
                logger.notice("hosts file was changed from outside; managed section restored",
                              metadata: ["path": "\(path)", "names": "\(desired.count)"])
            }
        } catch {
            lastError = error.description
            logger.error("cannot restore the hosts file", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    public func status() async -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = ["path": .text(path), "restores": .count(restores)]
        if let lastMethod { details["write"] = .text(lastMethod.rawValue) }
        return EnforcerStatus(name: name, applied: inForce && lastError == nil, elements: desired.count,
                              lastApplied: lastApplied, lastError: lastError, details: details)
    }

    /// Checks the file as the machine's resolvers see it: the section the active blocks need,
    /// and no entry of the user's own that maps a blocked name to a real address (the user's
    /// entries come first in lookups, so one defeats the block).
    public func diagnose() async -> [Finding] {
        let subject = "hosts file"
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            return [Finding(subject, .warning, "\(path) is a symbolic link; blocking replaces it with a regular file",
                                    fix: "point the link's users at \(path) itself, or manage the link's target")]
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard access(directory, W_OK) == 0 || access(path, W_OK) == 0 else {
            return [Finding(subject, .problem, "\(path) cannot be written by simplylockd",
                                    fix: "make \(directory) writable for the daemon (ReadWritePaths=/etc in the unit)")]
        }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(path) ?? [] } catch {
            return [Finding(subject, .problem, error.description, fix: "check the file's permissions")]
        }
        let document = HostsDocument(bytes: bytes)
        if document.rendered(names: desired) != bytes {
            let text = String(decoding: bytes, as: UTF8.self)
            let begins = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == HostsDocument.beginMarker }.count
            let what = begins > 1 ? "has \(begins) managed sections"
                : (desired.isEmpty ? "still has a managed section although nothing is blocked" : "does not have the section the active blocks need")
            return [Finding(subject, .problem, "\(path) \(what)",
                                    fix: "the daemon rewrites it on every change and within a second of an edit; if this persists, see `journalctl -u simplylockd`")]
        }
        let blocked = Set(desired)
        for line in String(decoding: document.userBytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix { !$0.hasPrefix("#") }
            guard let address = fields.first, address != "0.0.0.0", address != "::", address != "127.0.0.1", address != "::1" else { continue }
            if let name = fields.dropFirst().first(where: { blocked.contains(String($0).lowercased()) }) {
                return [Finding(subject, .warning,
                                        "your own entry \"\(line.trimmingCharacters(in: .whitespaces))\" maps blocked \(name) to a real address",
                                        fix: "remove that line from \(path) while you want \(name) blocked")]
            }
        }
        return [Finding(subject, .ok, desired.isEmpty ? "\(path): nothing blocked, no managed section"
                                                              : "\(path): managed section in place, \(desired.count) names")]
    }

    /// Makes the file match `desired`. Returns true when it had to write.
    private func sync() throws(SystemError) -> Bool {
        let current = try AtomicFile.read(path)
        let document = HostsDocument(bytes: current ?? [])
        let wanted = document.rendered(names: desired)
        inForce = true
        if let current, current == wanted { return false }
        if current == nil, desired.isEmpty { return false }
        lastMethod = try AtomicFile.write(wanted, to: path, defaultMode: 0o644, inPlaceFallback: true)
        return true
    }
}
