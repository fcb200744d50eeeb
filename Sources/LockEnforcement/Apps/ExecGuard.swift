import CLinux
import Glibc
import LockPlatform
import Logging

/// Keeps blocked programs from running, with the strongest mechanism the kernel allows here:
/// fanotify permission events (execs refused before they happen), or where fanotify is refused
/// (in a container, without CAP_SYS_ADMIN) the process-event connector (processes killed just
/// after their exec).
///
/// Decisions are made on threads of the guard's own, from an immutable `ExecRules` swapped by
/// `update`; they never wait for the caller, for Swift concurrency or for logging. Denials are
/// handed to `onDenial` on a reporting thread.
public final class ExecGuard: Sendable {
    /// How execs are checked.
    public enum Mode: String, Sendable, Codable {
        /// fanotify permission events: execs refused in the kernel.
        case fanotify
        /// The proc connector: processes killed just after their exec.
        case procConnector = "proc-connector"
    }

    /// Which mechanism to use.
    public enum Preference: String, Sendable, Codable {
        /// fanotify where the kernel allows it, else the proc connector.
        case automatic
        /// fanotify or nothing.
        case fanotify
        /// The proc connector even where fanotify would work (tests, comparisons).
        case procConnector = "proc-connector"
    }

    /// The mechanism in use.
    public let mode: Mode
    /// Why fanotify is not in use, when it is not (`fanotify_init exec group: Operation not permitted`).
    public let fallbackReason: String?

    private let backend: any ExecGuardBackend
    private let reporter: DenialReporter
    /// Digests of strict rules, shared by the decisions and the running-instance scans.
    let hasher: ContentHasher

    /// Starts the guard with nothing blocked.
    ///
    /// - Throws: `SystemError` when no mechanism can be used (the last one's error).
    public init(
        preference: Preference = .automatic, logger: Logger,
        onDenial: @escaping @Sendable (ExecDenial) -> Void, onLaunch: (@Sendable (LaunchRequest) -> Void)? = nil
    ) throws(SystemError) {
        let hasher = ContentHasher()
        let reporter = DenialReporter(logger: logger, onDenial: onDenial)
        var reason: String?
        if preference != .procConnector {
            do {
                backend = try FanotifyExecGuard(hasher: hasher, reporter: reporter, onLaunch: onLaunch)
                mode = .fanotify
                fallbackReason = nil
                self.hasher = hasher
                self.reporter = reporter
                return
            } catch {
                if preference == .fanotify {
                    reporter.stop()
                    throw error
                }
                reason = error.description
                logger.warning("fanotify unavailable; falling back to the proc connector", metadata: ["error": "\(error)"])
            }
        }
        do {
            backend = try ProcConnectorExecGuard(hasher: hasher, reporter: reporter)
        } catch {
            reporter.stop()
            throw error
        }
        mode = .procConnector
        fallbackReason = reason
        self.hasher = hasher
        self.reporter = reporter
    }

    /// Why fanotify permission events cannot be used here, or nil when they can (a group is
    /// opened and closed again; nothing is marked). For `lockctl doctor` and test skips.
    public static func fanotifyUnavailableReason() -> String? {
        let fd = clinux_fanotify_init(UInt32(FAN_CLASS_CONTENT | FAN_CLOEXEC), UInt32(O_RDONLY | O_CLOEXEC))
        guard fd >= 0 else { return SystemError("fanotify_init", "FAN_CLASS_CONTENT").description }
        close(fd)
        return nil
    }

    /// Why the process-event connector cannot be used here, or nil when it can (a socket is
    /// subscribed and unsubscribed again).
    public static func procConnectorUnavailableReason() -> String? {
        let fd = clinux_proc_connector_open()
        guard fd >= 0 else { return SystemError("proc connector", "NETLINK_CONNECTOR").description }
        clinux_proc_connector_close(fd)
        return nil
    }

    /// The mechanism `preference` would use here, or why none can be used; with the reason
    /// fanotify is not the one, when it is not. Opens and closes what it tries: never call it
    /// while a guard runs (one fanotify group per process).
    public static func availability(preference: Preference = .automatic) -> (mode: Mode?, reason: String?) {
        var fanotifyReason: String?
        if preference != .procConnector {
            fanotifyReason = fanotifyUnavailableReason()
            if fanotifyReason == nil { return (.fanotify, nil) }
            if preference == .fanotify { return (nil, fanotifyReason) }
        } else {
            fanotifyReason = "the proc connector was asked for"
        }
        // Without these it would see other users' programs start but could neither tell which
        // program runs (/proc/PID/exe) nor stop it: a block that blocks nothing.
        let lacking = ProcessCapabilities.missing([ProcessCapabilities.sysPtrace, ProcessCapabilities.kill])
        let reason =
            lacking.isEmpty
            ? procConnectorUnavailableReason()
            : "the proc connector needs \(lacking.joined(separator: " and ")) to stop other users' programs"
        if let reason {
            return (nil, [fanotifyReason, reason].compactMap { $0 }.joined(separator: "; "))
        }
        return (.procConnector, fanotifyReason)
    }

    /// Puts `rules` in force: marks the filesystems and files they need, swaps them in and
    /// forgets every allowed file remembered under the previous rules. Returns what could not
    /// be done (the rest is in force).
    @discardableResult
    public func update(_ rules: ExecRules) -> [String] { backend.update(rules) }

    /// Marks filesystems found between updates (device → a path to it; idempotent, the allow
    /// cache is kept): mounts of other mount namespaces, whose device numbers can be those of
    /// filesystems that went away.
    func markFilesystems(_ filesystems: [UInt64: String]) { backend.markFilesystems(filesystems) }

    /// Counters and marks.
    public var statistics: ExecGuardStatistics { backend.statistics() }

    /// True when the decision thread showed a sign of life within `seconds` (it does at least
    /// four times a second when idle): for the daemon's watchdog. A guard that stops answering
    /// must get the daemon restarted, because every exec on a marked filesystem waits for it.
    public func isAnswering(within seconds: Double) -> Bool {
        let age = Double(monotonicNanoseconds() &- backend.lastBeat) / 1e9
        return age <= seconds
    }

    /// Stops: from now on nothing is denied.
    public func stop() {
        backend.stop()
        reporter.stop()
    }

    deinit { stop() }
}
