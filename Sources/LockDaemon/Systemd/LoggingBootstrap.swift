import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sets up swift-log for the daemon: journal entries under systemd, plain lines otherwise.
public enum LoggingBootstrap {
    /// The socket `sd_journal_sendv` writes to.
    public static let journalSocketPath = "/run/systemd/journal/socket"

    /// Picks the destination for this process: ``LogDestination/journal`` when standard error is
    /// connected to the journal, ``LogDestination/stderr`` otherwise.
    ///
    /// systemd sets `JOURNAL_STREAM=<device>:<inode>` for services whose stdout or stderr is a
    /// journal stream (`systemd.exec(5)`). The variable is inherited by children and survives
    /// redirections, so its presence alone proves nothing: only when it matches `fstat(2)` of
    /// file descriptor 2 is stderr really the journal (`simplylockd 2>/tmp/log` from a service's
    /// shell must keep writing plain lines to the file). The native socket must exist too:
    /// `sd_journal_sendv` reports success when it is missing (ENOENT is ignored on purpose), so
    /// without this check entries would vanish without a trace, e.g. in a container that passes
    /// the variable through but has no journald.
    public static func detectDestination() -> LogDestination {
        var status = stat()
        guard fstat(2, &status) == 0 else { return .stderr }
        let variable = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        return destination(
            journalStream: variable, stderrDevice: UInt64(status.st_dev), stderrInode: UInt64(status.st_ino),
            journalSocketExists: access(journalSocketPath, W_OK) == 0)
    }

    /// The pure part of ``detectDestination()``: compares `JOURNAL_STREAM` with stderr's identity.
    /// - Parameters:
    ///   - journalStream: The value of `JOURNAL_STREAM`, `nil` when unset.
    ///   - stderrDevice: `st_dev` of file descriptor 2.
    ///   - stderrInode: `st_ino` of file descriptor 2.
    ///   - journalSocketExists: Whether journald's native socket can be written to.
    /// - Returns: ``LogDestination/journal`` only for a well-formed, matching `device:inode` and
    ///   a reachable journal socket.
    public static func destination(journalStream: String?, stderrDevice: UInt64, stderrInode: UInt64, journalSocketExists: Bool = true)
        -> LogDestination
    {
        guard journalSocketExists, let journalStream else { return .stderr }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else {
            return .stderr
        }
        return device == stderrDevice && inode == stderrInode ? .journal : .stderr
    }

    /// Returns a handler factory for `LoggingSystem.bootstrap(_:metadataProvider:)`.
    /// - Parameters:
    ///   - level: The minimum level of every logger created by the factory.
    ///   - identifier: `SYSLOG_IDENTIFIER` / the name printed on stderr lines.
    ///   - destination: Where entries go.
    public static func makeFactory(level: Logger.Level, identifier: String, destination: LogDestination)
        -> @Sendable (String, Logger.MetadataProvider?) -> any LogHandler
    {
        { label, provider in
            DaemonLogHandler(
                destination: destination, label: label, identifier: identifier, logLevel: level,
                metadataProvider: provider)
        }
    }

    /// Bootstraps swift-log once per process with the handler that fits (see
    /// ``detectDestination()``).
    ///
    /// swift-log allows a single bootstrap per process; call this first thing in `main`. To
    /// change the level at runtime (SIGHUP reload), keep the level in the daemon and create new
    /// loggers, or set `logger.logLevel` on the long-lived ones.
    /// - Parameters:
    ///   - level: The minimum level, e.g. from `simplylockd.toml` or `--log-level`.
    ///   - identifier: `SYSLOG_IDENTIFIER`; defaults to `simplylockd`.
    ///   - metadataProvider: Optional contextual metadata for every logger.
    /// - Returns: The destination chosen, so that the daemon can log it once at start-up.
    @discardableResult
    public static func bootstrap(level: Logger.Level, identifier: String = "simplylockd", metadataProvider: Logger.MetadataProvider? = nil)
        -> LogDestination
    {
        let destination = detectDestination()
        LoggingSystem.bootstrap(
            makeFactory(level: level, identifier: identifier, destination: destination), metadataProvider: metadataProvider)
        return destination
    }
}
