import Foundation
import Glibc
import LockCore
import LockPlatform
import Logging
import Synchronization

/// Blocks applications: their executables cannot be started (`ExecGuard`), and instances
/// running when a block starts are terminated or frozen.
///
/// Each apply resolves the desired apps on disk again (paths to identities, digests for strict
/// apps), swaps the guard's rules, and stops running instances; it is idempotent. The guard
/// runs only while some app is blocked: with nothing blocked there are no marks, no threads,
/// and execs cost nothing. Mount changes (a filesystem mounted again under a blocked program)
/// trigger a new apply while `watch()` runs.
public actor AppEnforcer: Enforcer {
    public nonisolated let name = "apps"

    /// Mechanism, timings and locations.
    public struct Settings: Sendable {
        /// fanotify, the proc connector, or the best available.
        public var preference: ExecGuard.Preference
        /// Time between SIGTERM and SIGKILL for running instances.
        public var terminateGrace: Duration
        /// Paths whose filesystems users can write to; watched for copies during strict blocks,
        /// with every mount `UserWritableMounts` finds at or under `mountScope`.
        public var userWritable: [String]
        /// Where user-writable mounts are looked for (tests give a directory of their own, so
        /// that no filesystem of the machine is ever marked); empty: nowhere.
        public var mountScope: [String]
        /// The cgroup v2 mount point; nil finds it in `/proc/self/mountinfo`.
        public var cgroupRoot: String?
        /// Where frozen scopes are recorded, so that a restarted daemon thaws what an earlier
        /// one froze; nil keeps the record in memory only.
        public var frozenRecord: String?

        /// Creates settings.
        public init(
            preference: ExecGuard.Preference = .automatic, terminateGrace: Duration = .seconds(5),
            userWritable: [String] = ["/home", "/tmp", "/var/tmp", "/dev/shm", "/run/user"],
            cgroupRoot: String? = nil, frozenRecord: String? = nil, mountScope: [String] = ["/"]
        ) {
            self.preference = preference
            self.mountScope = mountScope
            self.terminateGrace = terminateGrace
            self.userWritable = userWritable
            self.cgroupRoot = cgroupRoot
            self.frozenRecord = frozenRecord
        }
    }

    let settings: Settings
    let logger: Logger
    private let onDenial: @Sendable (ExecDenial) -> Void
    private let onLaunch: (@Sendable (LaunchRequest) -> Void)?
    /// Readable without the actor, for the watchdog.
    let guardian = Mutex<ExecGuard?>(nil)
    let freezer: CgroupFreezer?

    private(set) var apps: [BlockedApp] = []
    private var counted: [CountedApp] = []
    private(set) var rules: ExecRules = .none
    private var frozen: [String: String] = [:]
    private var lastApplied: Date?
    private var lastError: String?
    private var notes: [String] = []
    private var terminated = 0
    /// Processes the last scan found running a blocked program (pid → its executable), all
    /// stopped then: the next scan leaves them to the grace period or the freezer.
    private var stopping: [Int32: FileIdentity] = [:]
    /// The other mount namespaces' user-writable mounts the rules watch (`ForeignMounts.Mount.identity`).
    var foreignMounts: Set<String> = []
    private var lastMode: ExecGuard.Mode?
    private(set) var fallbackReason: String?

    /// Creates the enforcer; nothing runs until an apply blocks an app.
    ///
    /// - Parameters:
    ///   - onDenial: called on a reporting thread for each refused exec or killed process (the
    ///     daemon's `app.blocked` events).
    ///   - onLaunch: called on the guard's launch thread for each launch of a counted app; the
    ///     daemon decides it (`LaunchRequest`). Without it, launches are answered by the rule
    ///     for undecided launches.
    public init(
        settings: Settings = Settings(), logger: Logger = Logger(label: "simplylock.apps"),
        onDenial: @escaping @Sendable (ExecDenial) -> Void = { _ in }, onLaunch: (@Sendable (LaunchRequest) -> Void)? = nil
    ) {
        self.settings = settings
        self.logger = logger
        self.onDenial = onDenial
        self.onLaunch = onLaunch
        freezer = (settings.cgroupRoot ?? CgroupFreezer.cgroup2Root()).map(CgroupFreezer.init(root:))
        if let record = settings.frozenRecord, let bytes = try? AtomicFile.read(record),
            let saved = try? JSONDecoder().decode([String: String].self, from: Data(bytes))
        {
            frozen = saved
        }
    }

    public func apply(_ desired: DesiredBlock) async throws {
        apps = desired.apps
        counted = desired.counted
        do {
            try enforce()
            lastError = nil
            lastApplied = Date()
        } catch {
            lastError = "\(error)"
            throw error
        }
    }

    /// - Parameter remount: the mount table changed: marks are renewed even when the rules
    ///   look the same (a filesystem mounted again under the same device number lost them).
    func enforce(remount: Bool = false) throws {
        guard !apps.isEmpty || !counted.isEmpty else {
            guardian.withLock { current in
                current?.stop()
                current = nil
            }
            rules = .none
            notes = []
            stopping = [:]
            foreignMounts = []
            thaw(keeping: [])
            return
        }
        let (execGuard, started): (ExecGuard, Bool)
        do {
            (execGuard, started) = try guardian.withLock { current throws -> (ExecGuard, Bool) in
                if let current { return (current, false) }
                let started = try ExecGuard(preference: settings.preference, logger: logger, onDenial: onDenial, onLaunch: onLaunch)
                current = started
                return (started, true)
            }
        } catch  where apps.isEmpty {
            // Open limits alone never make a block fail: they are not enforced, and status says why.
            notes = ["open limits are not enforced: \(error)"]
            logger.error("cannot count launches", metadata: ["error": "\(error)"])
            return
        }
        lastMode = execGuard.mode
        fallbackReason = execGuard.fallbackReason
        // Found again at every apply, and `watch` applies again when the mount table changes:
        // a tmpfs, FUSE filesystem or USB stick mounted during a strict block is watched too.
        // Other mount namespaces' too (`unshare -Urm`), and `sweep` looks for new ones.
        let strict = apps.contains(where: \.strict)
        let mounts = strict ? UserWritableMounts.current(extra: settings.userWritable, scope: settings.mountScope) : []
        let foreign = strict ? ForeignMounts.find(extra: settings.userWritable, scope: settings.mountScope) : []
        foreignMounts = Set(foreign.map(\.identity))
        let rules = ExecRules.resolve(
            apps, counted: counted, hasher: execGuard.hasher, userWritable: settings.userWritable + mounts, foreign: foreign)
        // Applying the same block again (the daemon re-applies on every session change) keeps
        // the allow cache: only a real change makes allowed programs ask the guard again.
        if started || remount || !rules.decidesLike(self.rules) {
            notes = rules.notes + execGuard.update(rules)
        } else {
            notes = rules.notes
        }
        self.rules = rules
        if rules.countsLaunches, execGuard.mode != .fanotify {
            notes.append("open limits are not enforced by the proc connector (launches need fanotify)")
        }
        for note in notes { logger.warning("app block: \(note)") }
        stopRunning(rules, hasher: execGuard.hasher)
        thaw(keeping: Set(apps.filter { $0.running == .freeze }.map(\.id)))
    }

    /// Terminates or freezes what runs a blocked program now.
    func stopRunning(_ rules: ExecRules, hasher: ContentHasher) {
        let found = RunningProcesses.matching(rules, hasher: hasher)
        let matches = found.filter { stopping[$0.pid] != $0.executable }
        stopping = Dictionary(found.map { ($0.pid, $0.executable) }, uniquingKeysWith: { first, _ in first })
        guard !matches.isEmpty else { return }
        var toTerminate: [RunningProcesses.Match] = []
        var byScope: [String: [RunningProcesses.Match]] = [:]
        for match in matches {
            let app = apps[match.rule]
            if app.running == .freeze, let freezer, let scope = freezer.scope(of: match.pid) {
                byScope[scope, default: []].append(match)
            } else {
                toTerminate.append(match)
            }
        }
        for (scope, members) in byScope.sorted(by: { $0.key < $1.key }) {
            guard let freezer, freezer.holdsOnly(Set(members.map(\.pid)), scope: scope) else {
                notes.append("\(scope) holds other programs too; terminating instead of freezing")
                toTerminate += members
                continue
            }
            do {
                try freezer.setFrozen(true, scope: scope)
                frozen[scope] = apps[members[0].rule].id
                logger.notice("froze \(scope)", metadata: ["app": "\(apps[members[0].rule].id)"])
            } catch {
                notes.append("could not freeze \(scope): \(error); terminating instead")
                toTerminate += members
            }
        }
        saveFrozen()
        let signalled = Terminator.terminate(toTerminate, grace: settings.terminateGrace)
        terminated += signalled.count
        for pid in signalled {
            if let match = toTerminate.first(where: { $0.pid == pid }) {
                logger.notice("terminating a running instance", metadata: ["app": "\(apps[match.rule].id)", "pid": "\(pid)"])
            }
        }
    }

    /// Thaws the scopes frozen for apps other than `keeping`.
    private func thaw(keeping: Set<String>) {
        var changed = false
        for (scope, app) in frozen.sorted(by: { $0.key < $1.key }) where !keeping.contains(app) {
            do {
                try freezer?.setFrozen(false, scope: scope)
                logger.notice("thawed \(scope)", metadata: ["app": "\(app)"])
            } catch {
                // The scope is gone (its processes ended): nothing left to thaw.
                logger.info("could not thaw \(scope): \(error)")
            }
            frozen[scope] = nil
            changed = true
        }
        if changed { saveFrozen() }
    }

    private func saveFrozen() {
        guard let record = settings.frozenRecord, let data = try? JSONEncoder().encode(frozen) else { return }
        do {
            _ = try AtomicFile.write(Array(data), to: record, defaultMode: 0o600)
        } catch {
            logger.error("could not record frozen scopes", metadata: ["error": "\(error)"])
        }
    }

    /// The exec guard's threads stop with the daemon (from then on nothing is denied, as when
    /// the process exits).
    public func shutdown() async {
        guardian.withLock { current in
            current?.stop()
            current = nil
        }
    }

    /// Applies again when the mount table changes (a blocked program's filesystem mounted
    /// again, a new filesystem under a user-writable path), and during strict blocks sweeps
    /// (`sweep`). Runs until cancelled.
    public func watch() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.sweepUntilCancelled() }
            group.addTask { await self.watchMountTable() }
        }
    }

    private func watchMountTable() async {
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let watcher: MountWatcher
        do {
            watcher = try MountWatcher { continuation.yield() }
        } catch {
            logger.error("cannot watch the mount table; app blocks will not follow remounts", metadata: ["error": "\(error)"])
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            return
        }
        await withTaskCancellationHandler {
            for await _ in changes {
                // Mounts come in bursts (a flatpak sandbox sets up dozens): settle first.
                try? await Task.sleep(for: .milliseconds(100))
                if Task.isCancelled { break }
                remount()
            }
        } onCancel: {
            continuation.finish()
        }
        watcher.stop()
    }

    private func remount() {
        guard !apps.isEmpty || !counted.isEmpty else { return }
        do {
            try enforce(remount: true)
        } catch {
            lastError = "\(error)"
            logger.error("re-applying app blocks after a mount change failed", metadata: ["error": "\(error)"])
        }
    }

    /// True when nothing is blocked or the guard's decision thread is alive (answered or
    /// idled within `seconds`). For the daemon's watchdog: a stuck guard must get the daemon
    /// restarted, since execs on marked filesystems wait for it.
    public nonisolated func isAnswering(within seconds: Double) -> Bool {
        guardian.withLock { $0?.isAnswering(within: seconds) ?? true }
    }

    /// The guard's counters, or nil when nothing is blocked.
    public nonisolated var statistics: ExecGuardStatistics? { guardian.withLock { $0?.statistics } }

    public func appCoverage(id: String, executables: [String]) async -> Coverage? {
        let paths = Set(executables)
        guard let index = apps.firstIndex(where: { $0.id == id || !paths.isDisjoint(with: $0.executables) }) else {
            return .doesNotCover("not blocked by any active session")
        }
        guard let statistics else {
            return .doesNotCover("the exec guard is not running" + (lastError.map { ": \($0)" } ?? ""))
        }
        guard rules.blocked.values.contains(where: { $0.rule == index }) else {
            return .doesNotCover("none of its programs was found on disk when the block was applied")
        }
        let copies = apps[index].strict ? ", copies and edited copies too" : ""
        switch statistics.mode {
        case .fanotify: return .blocks("its execs are refused by the kernel (fanotify)\(copies)")
        case .procConnector: return .blocks("killed just after it starts (proc connector)\(copies)")
        }
    }

    /// Scopes frozen now, with the app each was frozen for.
    public var frozenScopes: [String: String] { frozen }

    public func status() async -> EnforcerStatus {
        var details: [String: EnforcerStatus.Detail] = [:]
        let statistics = self.statistics
        if let statistics {
            details["mode"] = .text(statistics.mode.rawValue)
            details["filesystems"] = .text(statistics.markedFilesystems.joined(separator: ", "))
            details["watchedFiles"] = .count(statistics.watchedFiles)
            details["cachedInodes"] = .count(statistics.cachedInodes)
            details["events"] = .count(statistics.events)
            details["denials"] = .count(statistics.denials)
            details["errors"] = .count(statistics.errors)
            details["hashes"] = .count(statistics.hashes)
            if statistics.overflows > 0 { details["overflows"] = .count(statistics.overflows) }
            if statistics.droppedReports > 0 { details["droppedReports"] = .count(statistics.droppedReports) }
            if statistics.refusedUnchecked > 0 { details["refusedUnchecked"] = .count(statistics.refusedUnchecked) }
            if statistics.allowedUnchecked > 0 { details["allowedUnchecked"] = .count(statistics.allowedUnchecked) }
            if statistics.sentinelAllowed > 0 { details["sentinelAllowed"] = .count(statistics.sentinelAllowed) }
            if statistics.sentinelRefused > 0 { details["sentinelRefused"] = .count(statistics.sentinelRefused) }
            if statistics.mode == .fanotify, !statistics.hasSentinel { details["sentinel"] = .text("not running") }
            if statistics.sentinelFiltered > 0 { details["sentinelFiltered"] = .count(statistics.sentinelFiltered) }
        } else {
            details["mode"] = .text("idle")
        }
        if let lastMode { details["lastMode"] = .text(lastMode.rawValue) }
        if let fallbackReason { details["fallback"] = .text(fallbackReason) }
        details["apps"] = .text(apps.map(\.id).joined(separator: ", "))
        details["terminated"] = .count(terminated)
        if !counted.isEmpty {
            details["counted"] = .text(counted.map(\.id).joined(separator: ", "))
            details["launches"] = .text(statistics?.launchSummary ?? "not counted")
        }
        if !frozen.isEmpty { details["frozen"] = .text(frozen.keys.sorted().joined(separator: ", ")) }
        if !notes.isEmpty { details["notes"] = .text(notes.joined(separator: "; ")) }
        return EnforcerStatus(
            name: name, applied: lastError == nil && (apps.isEmpty || statistics != nil),
            elements: rules.blocked.count, lastApplied: lastApplied, lastError: lastError, details: details)
    }
}
