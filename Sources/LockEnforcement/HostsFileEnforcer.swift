import Foundation
import LockCore
import LockPlatform
import LockProtocol
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
    /// anything is blocked on the network (an address-only or allowlist block included; an
    /// apps-only block is not the hosts file's business).
    public nonisolated func names(for block: DesiredBlock) -> [String] {
        !block.blocksNetwork ? [] : block.domains + alwaysWithBlock.filter { !block.domains.contains($0) }
    }

    public func watch() async {
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
            logger.error("cannot watch the hosts file", metadata: ["path": "\(path)", "error": "\(error)"])
            return
        }
        defer { watcher.stop() }
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

    public func report() async -> EnforcerReport {
        var details = ["path": path, "restores": "\(restores)"]
        if let lastMethod { details["write"] = lastMethod.rawValue }
        return EnforcerReport(name: name, applied: inForce && lastError == nil, elements: desired.count,
                              lastApplied: lastApplied, lastError: lastError, details: details)
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
