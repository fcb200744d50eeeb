import CLinux
import Foundation
import Glibc
import LockCore
import LockPlatform
import Synchronization

/// Refuses execs of blocked programs in the kernel, with fanotify permission events.
///
/// One notification group (`FAN_CLASS_CONTENT`) with two kinds of marks:
/// - `FAN_OPEN_EXEC_PERM` on whole filesystems (`FAN_MARK_FILESYSTEM`: a mount mark would miss
///   bind mounts and flatpak's sandbox). Every exec on a marked filesystem asks the answer
///   thread, which decides by the (device, inode) of the file (fstat of the event's descriptor,
///   never its path). An allowed file gets an ignore mark, so its later execs never reach the
///   guard; the ignore marks are flushed whenever the rules change.
/// - `FAN_OPEN_PERM` on the blocked files themselves (inode marks), refused only when the
///   opener's executable is an interpreter or the dynamic loader (`python3 game.py`,
///   `ld-linux-x86-64.so.2 ./game`); `cat game.py` still works.
///
/// One group, not one per kind: when a process holding two groups dies, the kernel destroys
/// them one after the other, and destroying the first waits for every task that holds a
/// reference to one of its marks, including a task that is waiting for the second group's
/// answer, which can never come (seen here: the exec and the dying process both stuck in D
/// state for good). With one group, its release answers everything pending and nothing waits.
///
/// The answer thread never waits for anything but the kernel and one short lock: no Swift
/// concurrency, no logging (notes go through `DenialReporter`). What cannot be checked in time
/// (more than `hashQueueCapacity` files waiting, a file not read within `hashDeadline` of its
/// exec, an internal error) is refused during a strict block and allowed otherwise, and never
/// remembered as allowed. Reading files for strict rules happens on a worker thread that
/// answers its own events, so one large file never holds up other execs. When the guard stops (or its process
/// dies), the kernel lets every pending and future exec through.
final class FanotifyExecGuard: ExecGuardBackend {
    struct Decision: Sendable {
        var rules: ExecRules
        var generation: UInt64
        var evictable: Bool
        var stopped: Bool
    }

    private struct Marks {
        var filesystems: [UInt64: String] = [:]
        var files = 0
        /// Set once the group descriptor is closed; no mark may be touched afterwards.
        var closed = false
    }

    struct PendingHash: Sendable {
        var fd: Int32
        var pid: Int32
        var status: stat
        var generation: UInt64
        /// The exec waits from here: `hashDeadline` counts from it, not from the start of reading.
        var queued: ContinuousClock.Instant
    }

    static let hashQueueCapacity = 64
    static let hashDeadline = Duration.seconds(2)

    let groupFD: Int32
    let stopFD: Int32
    let hashWakeFD: Int32
    let decision: Mutex<Decision>
    private let marks = Mutex(Marks())
    let pending = Mutex<[PendingHash]>([])
    let hasher: ContentHasher
    let reporter: DenialReporter
    /// Decides the launches of counted apps.
    let launches: LaunchGate
    private let finished = DispatchGroup()
    /// Answers in the daemon's place when the answer thread stalls; nil if it could not start.
    private let sentinel: ExecSentinel?

    private let beat = Atomic<UInt64>(0)
    private let events = Atomic<Int>(0)
    let denials = Atomic<Int>(0)
    private let errors = Atomic<Int>(0)
    private let overflows = Atomic<Int>(0)
    let cached = Atomic<Int>(0)
    private let refusedUnchecked = Atomic<Int>(0)
    private let allowedUnchecked = Atomic<Int>(0)

    /// Opens both groups and starts the threads; nothing is marked until `update`.
    ///
    /// - Throws: `SystemError` from `fanotify_init` (EPERM without CAP_SYS_ADMIN or in a
    ///   container, EINVAL or ENOSYS on kernels without permission events).
    init(hasher: ContentHasher, reporter: DenialReporter, onLaunch: (@Sendable (LaunchRequest) -> Void)?) throws(SystemError) {
        let groupFlags = UInt32(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE | FAN_UNLIMITED_MARKS)
        let eventFlags = UInt32(O_RDONLY | O_CLOEXEC)
        groupFD = clinux_fanotify_init(groupFlags, eventFlags)
        guard groupFD >= 0 else { throw SystemError("fanotify_init", "FAN_CLASS_CONTENT") }
        stopFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        hashWakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        decision = Mutex(Decision(rules: .none, generation: 0, evictable: true, stopped: false))
        self.hasher = hasher
        self.reporter = reporter
        let group = groupFD
        launches = LaunchGate(
            stopFD: stopFD, onLaunch: onLaunch, respond: { fd, allow in _ = clinux_fanotify_respond(group, fd, allow ? 1 : 0) },
            refused: { pid, fd, app, refusal in
                reporter.report(Self.denial(pid: pid, fd: fd, appID: app.id, appName: app.name, reason: .openLimit, refusal: refusal))
            })
        sentinel = ExecSentinel(group: groupFD)
        beat.store(monotonicNanoseconds(), ordering: .relaxed)
        start(name: "exec-guard", run: answerLoop)
        start(name: "exec-guard-hash", run: hashLoop)
        start(name: "exec-guard-launch", run: launches.run)
    }

    private func start(name: String, run: @escaping @Sendable () -> Void) {
        finished.enter()
        let group = finished
        let thread = Thread {
            run()
            group.leave()
        }
        thread.name = name
        thread.start()
    }

    var lastBeat: UInt64 { beat.load(ordering: .relaxed) }

    // MARK: Rules and marks

    func update(_ rules: ExecRules) -> [String] {
        marks.withLock { marks -> [String] in
            guard !marks.closed else { return ["the exec guard is stopped"] }
            var problems: [String] = []
            // Filesystem marks are added again every time: adding is idempotent, and a
            // filesystem unmounted and mounted again (same device number, new superblock) lost
            // its mark with the old superblock.
            for (device, path) in rules.filesystems.sorted(by: { $0.key < $1.key }) {
                if markFilesystem(device: device, path: path) {
                    marks.filesystems[device] = path
                } else {
                    problems.append(SystemError("fanotify_mark (filesystem)", path).description)
                }
            }
            // The new rules, the end of the allow cache and the marks on blocked files change
            // together, under the lock `cacheAllowed` takes: an ignore mark decided under the
            // old rules cannot be added afterwards. Flushing removes every inode mark, the
            // blocked files' too, so those are added back at once; an interpreter opening a
            // blocked script in the few microseconds between is the only thing that can slip
            // through (execs are decided by the filesystem marks, which stay).
            let stopped = decision.withLock { decision -> Bool in
                guard !decision.stopped else { return true }
                _ = clinux_fanotify_mark(groupFD, UInt32(FAN_MARK_FLUSH), 0, AT_FDCWD, nil)
                marks.files = 0
                for (_, file) in rules.blocked.sorted(by: { $0.key < $1.key }) {
                    if clinux_fanotify_mark(groupFD, UInt32(FAN_MARK_ADD), UInt64(FAN_OPEN_PERM), AT_FDCWD, file.path) == 0 {
                        marks.files += 1
                    } else {
                        problems.append(SystemError("fanotify_mark (file)", file.path).description)
                    }
                }
                decision.rules = rules
                decision.generation &+= 1
                sentinel?.update(rules)
                cached.store(0, ordering: .relaxed)
                return false
            }
            guard !stopped else { return ["the exec guard is stopped"] }
            var removed = false
            for (device, path) in marks.filesystems where rules.filesystems[device] == nil {
                _ = markFilesystem(device: device, path: path, adding: false)
                marks.filesystems[device] = nil
                removed = true
            }
            if removed {
                // Two devices can share a superblock (btrfs subvolumes): removing one's mark
                // removed the other's. Adding back is idempotent.
                for (device, path) in marks.filesystems { _ = markFilesystem(device: device, path: path) }
            }
            return problems
        }
    }

    func markFilesystems(_ filesystems: [UInt64: String]) {
        marks.withLock { marks in
            guard !marks.closed else { return }
            for (device, path) in filesystems where markFilesystem(device: device, path: path) { marks.filesystems[device] = path }
        }
    }

    /// Marks the filesystem `path` leads to, only if that is still `device`: a path into
    /// another mount namespace (`/proc/PID/root/…`) whose mount went away leads to the
    /// filesystem underneath, which must not be marked instead. The mark is put through the
    /// descriptor checked (`/proc/self/fd/N`), so nothing can change in between.
    private func markFilesystem(device: UInt64, path: String, adding: Bool = true) -> Bool {
        let fd = open(path, CLINUX_O_PATH | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, UInt64(status.st_dev) == device else {
            errno = ESTALE
            return false
        }
        let flags = (adding ? FAN_MARK_ADD : FAN_MARK_REMOVE) | FAN_MARK_FILESYSTEM
        return clinux_fanotify_mark(groupFD, UInt32(flags), UInt64(FAN_OPEN_EXEC_PERM), AT_FDCWD, "/proc/self/fd/\(fd)") == 0
    }

    func statistics() -> ExecGuardStatistics {
        let (filesystems, files) = marks.withLock { ($0.filesystems.values.sorted(), $0.files) }
        var statistics = ExecGuardStatistics(
            mode: .fanotify, markedFilesystems: filesystems, watchedFiles: files,
            cachedInodes: cached.load(ordering: .relaxed), events: events.load(ordering: .relaxed),
            denials: denials.load(ordering: .relaxed), errors: errors.load(ordering: .relaxed),
            hashes: hasher.computations, overflows: overflows.load(ordering: .relaxed),
            droppedReports: reporter.droppedCount, refusedUnchecked: refusedUnchecked.load(ordering: .relaxed),
            allowedUnchecked: allowedUnchecked.load(ordering: .relaxed), sentinelAllowed: sentinel?.answered.allowed ?? 0,
            sentinelRefused: sentinel?.answered.refused ?? 0, sentinelFiltered: sentinel?.filtered ?? 0, hasSentinel: sentinel != nil)
        let launched = launches.statistics
        statistics.launchesAllowed = launched.allowed
        statistics.launchesRefused = launched.refused
        statistics.launchesWithin = launched.within
        statistics.launchesUndecided = launched.undecided
        return statistics
    }

    func stop() {
        let first = decision.withLock { decision -> Bool in
            defer { decision.stopped = true }
            return !decision.stopped
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
        // Bounded: a thread stuck in the kernel must not hold up shutdown; closing the group
        // below lets every exec through either way.
        _ = finished.wait(timeout: .now() + 2)
        marks.withLock { marks in
            marks.closed = true
            // The sentinel holds the group too: it must end for the group to close.
            sentinel?.stop()
            close(groupFD)
        }
    }

    deinit {
        stop()
        close(stopFD)
        close(hashWakeFD)
    }

    // MARK: The answer thread

    private func answerLoop() {
        var buffer = [clinux_fanotify_event](repeating: clinux_fanotify_event(), count: 64)
        var fds = [
            pollfd(fd: groupFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            alive()
            let ready = poll(&fds, 2, 250)
            if ready < 0 {
                if errno != EINTR {
                    errors.add(1, ordering: .relaxed)
                    usleep(1000)
                }
                continue
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) != 0 { drain(&buffer) }
        }
    }

    /// A sign of life, for the watchdog and the sentinel.
    private func alive() {
        let now = monotonicNanoseconds()
        beat.store(now, ordering: .relaxed)
        sentinel?.beat(now)
    }

    private func drain(_ buffer: inout [clinux_fanotify_event]) {
        while true {
            alive()
            let count = buffer.withUnsafeMutableBufferPointer { clinux_fanotify_read(groupFD, $0.baseAddress, Int32($0.count)) }
            if count < 0 {
                errors.add(1, ordering: .relaxed)
                return
            }
            if count == 0 { return }
            for index in 0..<Int(count) {
                let event = buffer[index]
                guard event.fd >= 0 else {
                    overflows.add(1, ordering: .relaxed)
                    continue
                }
                events.add(1, ordering: .relaxed)
                // An exec of a blocked file carries both bits (the filesystem mark asks for
                // execs, the file's own mark for opens): the exec decision is the one to make.
                if event.mask & UInt64(FAN_OPEN_EXEC_PERM) != 0 { handleExec(event) } else { handleOpen(event) }
            }
        }
    }

    /// An exec on a marked filesystem.
    private func handleExec(_ event: clinux_fanotify_event) {
        let fd = event.fd
        let (rules, generation) = decision.withLock { ($0.rules, $0.generation) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            errors.add(1, ordering: .relaxed)
            answerUnchecked(fd, strict: rules.matchesContent)
            close(fd)
            return
        }
        if let file = rules.blocked[FileIdentity(status)] {
            answer(groupFD, fd, allow: false)
            deny(pid: event.pid, fd: fd, rule: rules.rules[file.rule], reason: .exec)
            close(fd)
            return
        }
        // Counted apps ask every time (never an ignore mark), on the launch gate's thread.
        if let index = rules.counted[FileIdentity(status)] {
            launches.submit(fd: fd, pid: event.pid, app: rules.countedApps[index], identities: rules.countedIdentities(index))
            return
        }
        if rules.needsContentCheck(status) {
            guard let signature = hasher.cachedSignature(ContentHasher.Key(status)) else {
                let item = PendingHash(fd: fd, pid: event.pid, status: status, generation: generation, queued: .now)
                let queued = pending.withLock { items -> Bool in
                    guard items.count < Self.hashQueueCapacity else { return false }
                    items.append(item)
                    return true
                }
                if queued {
                    var one: UInt64 = 1
                    _ = write(hashWakeFD, &one, 8)
                } else {
                    answerUnchecked(fd, strict: rules.matchesContent)
                    close(fd)
                }
                return
            }
            if let rule = rules.rule(matching: signature) {
                answer(groupFD, fd, allow: false)
                deny(pid: event.pid, fd: fd, rule: rules.rules[rule], reason: .copy)
                close(fd)
                return
            }
        }
        // Remembered before the answer: a second exec of the same file started the moment the
        // first is let through no longer reaches the guard.
        cacheAllowed(fd, generation: generation, surviveModify: !rules.matchesContent)
        answer(groupFD, fd, allow: true)
        close(fd)
    }

    /// An exec that could not be checked (too many waiting, too slow to read, an error): refused
    /// during a strict block, allowed otherwise, and never remembered either way, so the next
    /// exec of the same file is checked again.
    func answerUnchecked(_ fd: Int32, strict: Bool) {
        answer(groupFD, fd, allow: !strict)
        if strict { refusedUnchecked.add(1, ordering: .relaxed) } else { allowedUnchecked.add(1, ordering: .relaxed) }
    }

    /// An open of a blocked file (inode mark): refused to interpreters and the loader only.
    private func handleOpen(_ event: clinux_fanotify_event) {
        let fd = event.fd
        defer { close(fd) }
        guard let identity = FileIdentity(fd: fd) else {
            errors.add(1, ordering: .relaxed)
            answer(groupFD, fd, allow: true)
            return
        }
        let rules = decision.withLock { $0.rules }
        // A mark left on a file that is no longer blocked (removed in the next update).
        guard let file = rules.blocked[identity] else {
            answer(groupFD, fd, allow: true)
            return
        }
        let exe = "/proc/\(event.pid)/exe"
        guard rules.mayRunOthers(exe: exe), let opener = Self.readLink(exe) else {
            answer(groupFD, fd, allow: true)
            return
        }
        answer(groupFD, fd, allow: false)
        deny(pid: event.pid, fd: fd, rule: rules.rules[file.rule], reason: .interpreter, opener: opener)
    }

    func answer(_ group: Int32, _ fd: Int32, allow: Bool) {
        if clinux_fanotify_respond(group, fd, allow ? 1 : 0) != 0 { errors.add(1, ordering: .relaxed) }
    }
}
