import Foundation
import Glibc
import LockCore
import LockPlatform
import Logging

/// Blocks applications with the BPF LSM exec guard (`bpf`): the kernel refuses to exec a blocked
/// program, and to map it as code, so it does not start through a copied dynamic loader either;
/// during a strict block memfds cannot be executed or mapped as code at all.
///
/// It complements the `apps` enforcer (fanotify), which matches copies by content and stops
/// running instances; this one decides by (device, inode) only, in the kernel, without a daemon
/// in the path: its pins keep it in force while the daemon is dead or restarting.
public actor BPFExecEnforcer: Enforcer {
    public nonisolated let name = "bpf"

    /// The compiled guard (`exec-guard.bpf.o`), or nil when none was found.
    private let object: String?
    /// Where its links and maps are pinned (`/sys/fs/bpf/simplylock`).
    private let pinDirectory: String
    private let logger: Logger
    private var guardian: BPFExecGuard?
    private var apps: [BlockedApp] = []
    private var lastApplied: Date?
    private var lastError: String?
    private var notes: [String] = []
    private var adopted = false
    /// The apps (indices into `apps`) with at least one program in the kernel's map.
    private var heldApps: Set<Int> = []

    /// What the guard covers, said the same way in status and doctor.
    static let covers = "exec, executable mappings (a copied dynamic loader), mprotect to executable; memfds during strict blocks"
    static let misses =
        "copies of a program (another inode), scripts run by an interpreter, code copied into anonymous memory by the program that runs it"

    /// Creates the enforcer; nothing is loaded until an apply blocks an app.
    public init(object: String?, pinDirectory: String, logger: Logger = Logger(label: "simplylock.bpf")) {
        self.object = object
        self.pinDirectory = pinDirectory
        self.logger = logger
    }

    public func apply(_ desired: DesiredBlock) async throws {
        apps = desired.apps
        do {
            try enforce()
            lastError = nil
            lastApplied = Date()
        } catch {
            lastError = "\(error)"
            throw error
        }
    }

    private func enforce() throws {
        var files: [FileIdentity: UInt32] = [:]
        var notes: [String] = []
        var held: Set<Int> = []
        for (index, app) in apps.enumerated() {
            for path in app.executables {
                guard path.hasPrefix("/"), let file = ExecutableFile.inspect(path, requireExecutable: false) else {
                    notes.append("\(app.id): \(path) not found")
                    continue
                }
                // Denying python3 or flatpak to everyone is never what a block means.
                guard ProgramNames.mayBeBlocked(file.resolved), ProgramNames.mayBeBlocked(path) else {
                    notes.append("\(app.id): \(path) is an interpreter or launcher and is never blocked")
                    continue
                }
                files[file.identity] = files[file.identity] ?? UInt32(index)
                held.insert(index)
            }
        }
        self.notes = notes
        heldApps = held
        guard !files.isEmpty else {
            guardian = nil
            BPFExecGuard.detach(pinDirectory: pinDirectory)
            return
        }
        if guardian == nil {
            guard let object else {
                throw SystemError("BPF exec guard", "exec-guard.bpf.o (not installed)", errno: ENOENT)
            }
            let (attached, adopted) = try BPFExecGuard.attach(object: object, pinDirectory: pinDirectory)
            guardian = attached
            self.adopted = adopted
            logger.notice(adopted ? "adopted the pinned BPF exec guard" : "BPF exec guard attached", metadata: ["pins": "\(pinDirectory)"])
        }
        try guardian?.sync(files, denyMemfd: apps.contains(where: \.strict), shmemDevice: BPFExecGuard.shmemDevice())
    }

    public func appCoverage(id: String, executables: [String]) async -> Coverage? {
        let paths = Set(executables)
        guard let index = apps.firstIndex(where: { $0.id == id || !paths.isDisjoint(with: $0.executables) }) else {
            return .doesNotCover("not blocked by any active session")
        }
        guard guardian != nil, lastError == nil else {
            return .doesNotCover("the BPF exec guard is not in force" + (lastError.map { ": \($0)" } ?? ""))
        }
        guard heldApps.contains(index) else {
            return .doesNotCover("none of its programs was found on disk (or each is an interpreter or launcher)")
        }
        return .blocks("the kernel refuses its exec and executable mappings (BPF LSM), through a copied loader too")
    }

    /// Nothing to watch: the kernel keeps the maps, and nothing but root can change them.
    public func watch() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    public func status() async -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = ["pins": .text(pinDirectory)]
        var elements = 0
        if let guardian {
            elements = guardian.blockedCount
            let denials = guardian.denialCounts
            details["mode"] = .text("bpf-lsm")
            details["covers"] = .text(
                guardian.deniesMemfd ? Self.covers : Self.covers.replacingOccurrences(of: "; memfds during strict blocks", with: ""))
            details["memfd"] = .text(guardian.deniesMemfd ? "refused" : "allowed (no strict block)")
            details["denials"] = .count(Int(denials.exec + denials.mapping + denials.memfd))
            details["adopted"] = .text(adopted ? "yes" : "no")
        } else {
            details["mode"] = .text("idle")
        }
        details["apps"] = .text(apps.map(\.id).joined(separator: ", "))
        if !notes.isEmpty { details["notes"] = .text(notes.joined(separator: "; ")) }
        // Applied only when what was asked for is in the kernel now.
        let applied = lastError == nil && (apps.isEmpty || guardian != nil)
        return EnforcerStatus(
            name: name, applied: applied, elements: elements, lastApplied: lastApplied, lastError: lastError, details: details)
    }

    public func diagnose() async -> [Finding] {
        if guardian != nil {
            return [
                Finding("bpf", .ok, "BPF LSM exec guard in force (pinned in \(pinDirectory)): covers \(Self.covers); not \(Self.misses)")
            ]
        }
        if let reason = BPFExecGuard.unavailableReason(object: object) {
            return [
                Finding(
                    "bpf", .problem,
                    "the BPF LSM exec guard cannot run here: \(reason); not covered: blocked programs started from a memfd, and for about 1 s copies started from another mount namespace's filesystem",
                    fix: "boot with bpf in lsm=, a kernel with BTF, and run simplylockd as root; else rely on the apps enforcer alone")
            ]
        }
        return [Finding("bpf", .ok, "idle; blocks will use the BPF LSM exec guard (\(Self.covers))")]
    }
}
