import CSystemd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Speaks the `sd_notify(3)` protocol to the service manager that started this process.
///
/// `simplylockd` runs as a `Type=notify` service: it reports `READY=1` only once state is
/// restored and every active block is enforced, keeps `STATUS=` current, says `STOPPING=1`
/// on shutdown and pings the watchdog. When the process was not started by systemd
/// (`NOTIFY_SOCKET` is unset) every method is a no-op, so the daemon runs the same way by hand.
///
/// The value is immutable and `Sendable`: `sd_notify` opens a fresh datagram socket per call
/// and reads `NOTIFY_SOCKET` each time, so concurrent calls from different tasks are safe.
public struct SystemdNotifier: Sendable {
    /// Whether `NOTIFY_SOCKET` was set when the notifier was created, i.e. whether anyone listens.
    public let isConnected: Bool

    /// The watchdog timeout the service manager enforces (`WATCHDOG_USEC`, from
    /// `sd_watchdog_enabled(3)`), or `nil` when no watchdog is configured for this process.
    public let watchdogTimeout: Duration?

    /// How often to call ``watchdog()``: half of ``watchdogTimeout``, as `sd_watchdog_enabled(3)`
    /// recommends, so that one late ping does not get the service killed. `nil` without watchdog.
    public var watchdogInterval: Duration? {
        watchdogTimeout.map { $0 / 2 }
    }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from the environment.
    ///
    /// The variables are left in place (`unset_environment = 0`): `sd_notify` reads
    /// `NOTIFY_SOCKET` on every call, and children such as `nft` ignore them because
    /// `WATCHDOG_PID` names this process and `NotifyAccess=main` drops their messages.
    public init() {
        isConnected = getenv("NOTIFY_SOCKET") != nil
        var usec: UInt64 = 0
        // > 0: enabled for this pid; 0: not configured or WATCHDOG_PID names another
        // process; < 0: malformed variables, which we treat as "no watchdog" rather than fail.
        if sd_watchdog_enabled(0, &usec) > 0, usec > 0 {
            watchdogTimeout = .microseconds(Int64(clamping: usec))
        } else {
            watchdogTimeout = nil
        }
    }

    /// Tells the service manager that start-up is complete (`READY=1`), optionally with a status.
    ///
    /// Call this only after state is restored and every active block is enforced: units
    /// ordered `After=simplylockd.service` (and `network-pre.target`) wait for it.
    /// - Returns: `true` if a service manager received the message.
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        send(["READY=1"] + Self.statusAssignment(status))
    }

    /// Updates the one-line status shown by `systemctl status` (`STATUS=`).
    /// - Returns: `true` if a service manager received the message.
    @discardableResult
    public func status(_ text: String) -> Bool {
        send(Self.statusAssignment(text))
    }

    /// Announces a configuration reload (`RELOADING=1`); send ``ready(status:)`` when it is done.
    ///
    /// `MONOTONIC_USEC=` is included because systemd 253 and later require it with
    /// `RELOADING=1` (for `Type=notify-reload`); older versions ignore it.
    /// - Returns: `true` if a service manager received the message.
    @discardableResult
    public func reloading(status: String? = nil) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        return send(["RELOADING=1", "MONOTONIC_USEC=\(usec)"] + Self.statusAssignment(status))
    }

    /// Announces that the service is shutting down (`STOPPING=1`).
    /// - Returns: `true` if a service manager received the message.
    @discardableResult
    public func stopping(status: String? = nil) -> Bool {
        send(["STOPPING=1"] + Self.statusAssignment(status))
    }

    /// Pings the watchdog (`WATCHDOG=1`). Call it every ``watchdogInterval`` from the code path
    /// whose liveness matters (the daemon's event loop), not from a free-running timer thread.
    /// - Returns: `true` if a service manager received the message.
    @discardableResult
    public func watchdog() -> Bool {
        send(["WATCHDOG=1"])
    }

    /// Pings the watchdog every ``watchdogInterval`` until the calling task is cancelled.
    ///
    /// Returns at once when no watchdog is configured. Each round first awaits `isHealthy`;
    /// a ping is only sent when it returns `true`. Pass a round trip through the component
    /// that must stay responsive (for example a no-op call on the block manager actor): if
    /// that hangs, pings stop and systemd restarts the daemon after ``watchdogTimeout``.
    public func runWatchdog(isHealthy: @Sendable () async -> Bool = { true }) async {
        guard let interval = watchdogInterval else { return }
        while !Task.isCancelled {
            if await isHealthy() {
                watchdog()
            }
            do {
                try await Task.sleep(for: interval)
            } catch {
                return  // cancelled: the service group is shutting down
            }
        }
    }

    /// Sends raw `KEY=value` assignments, one per line, in a single datagram.
    ///
    /// Newlines inside a value would start a new assignment, so they are replaced by spaces.
    /// - Returns: `true` if a service manager received the message; `false` if `NOTIFY_SOCKET`
    ///   is unset or sending failed (nothing useful can be done about either).
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        guard !assignments.isEmpty else { return false }
        let state = assignments.map(Self.singleLine).joined(separator: "\n")
        return sd_notify(0, state) > 0
    }

    static func statusAssignment(_ status: String?) -> [String] {
        status.map { ["STATUS=\($0)"] } ?? []
    }

    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
