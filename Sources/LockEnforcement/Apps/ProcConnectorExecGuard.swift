import CLinux
import Foundation
import Glibc
import LockPlatform
import Synchronization

/// Keeps blocked programs from running where fanotify is refused (a container, no
/// CAP_SYS_ADMIN): the kernel's process-event connector reports every exec just after it
/// happened, and a process running a blocked program is killed at once (SIGKILL through a
/// pidfd). Weaker than fanotify: the program runs for the moment it takes to notice (tens of
/// microseconds), and `cat game.py | python3` is not seen. When the kernel drops events
/// (ENOBUFS under an exec storm) every process is checked again.
final class ProcConnectorExecGuard: ExecGuardBackend {
    private let socketFD: Int32
    private let stopFD: Int32
    private let rules = Mutex<ExecRules>(.none)
    private let stopped = Mutex(false)
    private let hasher: ContentHasher
    private let reporter: DenialReporter
    private let finished = DispatchGroup()
    private let beat = Atomic<UInt64>(0)
    private let events = Atomic<Int>(0)
    private let denials = Atomic<Int>(0)
    private let errors = Atomic<Int>(0)
    private let overflows = Atomic<Int>(0)

    /// Subscribes to process events.
    ///
    /// - Throws: `SystemError` when the connector cannot be used (no CAP_NET_ADMIN; outside
    ///   the initial namespaces the kernel sends nothing).
    init(hasher: ContentHasher, reporter: DenialReporter) throws(SystemError) {
        let fd = clinux_proc_connector_open()
        guard fd >= 0 else { throw SystemError("proc connector", "NETLINK_CONNECTOR") }
        socketFD = fd
        stopFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        self.hasher = hasher
        self.reporter = reporter
        beat.store(monotonicNanoseconds(), ordering: .relaxed)
        finished.enter()
        let group = finished
        let thread = Thread { [self] in
            run()
            group.leave()
        }
        thread.name = "exec-guard-proc"
        thread.start()
    }

    var lastBeat: UInt64 { beat.load(ordering: .relaxed) }

    func update(_ rules: ExecRules) -> [String] {
        self.rules.withLock { $0 = rules }
        return []
    }

    func statistics() -> ExecGuardStatistics {
        let watched = rules.withLock { $0.blocked.count }
        return ExecGuardStatistics(
            mode: .procConnector, watchedFiles: watched, events: events.load(ordering: .relaxed),
            denials: denials.load(ordering: .relaxed), errors: errors.load(ordering: .relaxed), hashes: hasher.computations,
            overflows: overflows.load(ordering: .relaxed), droppedReports: reporter.droppedCount)
    }

    func stop() {
        let first = stopped.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
        _ = finished.wait(timeout: .now() + 2)
        clinux_proc_connector_close(socketFD)
    }

    deinit {
        stop()
        close(stopFD)
    }

    private func run() {
        var pids = [Int32](repeating: 0, count: 256)
        var fds = [
            pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            beat.store(monotonicNanoseconds(), ordering: .relaxed)
            let ready = poll(&fds, 2, 250)
            if ready < 0 { continue }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            while true {
                let count = pids.withUnsafeMutableBufferPointer { clinux_proc_connector_read(socketFD, $0.baseAddress, Int32($0.count)) }
                if count < 0 {
                    if errno == ENOBUFS {
                        overflows.add(1, ordering: .relaxed)
                        sweep()
                        continue
                    }
                    if errno != EAGAIN { errors.add(1, ordering: .relaxed) }
                    break
                }
                for pid in pids.prefix(Int(count)) { check(pid) }
            }
        }
    }

    private func check(_ pid: Int32) {
        events.add(1, ordering: .relaxed)
        let rules = self.rules.withLock { $0 }
        guard !rules.isEmpty, pid != getpid(),
            let match = RunningProcesses.match(pid: pid, rules: rules, hasher: hasher)
        else { return }
        kill(match, rules: rules)
    }

    /// Events were lost: look at every process.
    private func sweep() {
        let rules = self.rules.withLock { $0 }
        for match in RunningProcesses.matching(rules, hasher: hasher) { kill(match, rules: rules) }
    }

    private func kill(_ match: RunningProcesses.Match, rules: ExecRules) {
        let path = FanotifyExecGuard.readLink("/proc/\(match.pid)/exe") ?? "?"
        guard ProcessSignaller.signal(match.pid, SIGKILL, expecting: match.executable) else { return }
        denials.add(1, ordering: .relaxed)
        let rule = rules.rules[match.rule]
        reporter.report(ExecDenial(pid: match.pid, path: path, appID: rule.appID, appName: rule.appName, reason: .killed))
    }
}
