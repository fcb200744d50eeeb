/// What the exec guard has done since it started, for reports and the watchdog.
public struct ExecGuardStatistics: Sendable, Equatable {
    /// How execs are checked.
    public var mode: ExecGuard.Mode
    /// Filesystems watched (a path on each).
    public var markedFilesystems: [String] = []
    /// Blocked files watched for opens by interpreters (fanotify) or looked for on exec.
    public var watchedFiles = 0
    /// Allowed files remembered since the blocked set last changed (fanotify ignore marks):
    /// their execs no longer reach the guard at all.
    public var cachedInodes = 0
    /// Permission events answered (fanotify) or exec events examined (proc connector).
    public var events = 0
    /// Execs and opens refused, or processes killed.
    public var denials = 0
    /// Events answered ALLOW because something went wrong while deciding.
    public var errors = 0
    /// Files hashed to match copies.
    public var hashes = 0
    /// Events the kernel dropped (queue overflow; proc connector ENOBUFS).
    public var overflows = 0
    /// Denials and notes dropped because the report queue was full.
    public var droppedReports = 0
    /// Execs refused during a strict block because they could not be checked in time (too
    /// many waiting, too slow to read, an error).
    public var refusedUnchecked = 0
    /// Execs allowed outside strict blocks without a check, for the same reasons.
    public var allowedUnchecked = 0
    /// Events the sentinel answered while the decision thread was silent: allowed, refused.
    public var sentinelAllowed = 0
    public var sentinelRefused = 0
    /// Launches of counted apps allowed (and counted) and refused by their open limits.
    public var launchesAllowed = 0
    public var launchesRefused = 0
    /// Execs of counted apps while the app ran for the same user (not launches).
    public var launchesWithin = 0
    /// Launches answered by the rule (refused if strict, else allowed) because the daemon did
    /// not decide in time.
    public var launchesUndecided = 0
    /// Blocked files the sentinel holds in its filter rather than exactly (past 4 096): none is
    /// ever let through, and some unblocked files may be refused while the daemon is stalled.
    public var sentinelFiltered = 0
    /// False when the sentinel could not be started (a stalled daemon then stalls execs).
    public var hasSentinel = true

    /// `2 allowed, 1 refused, 3 within, 0 undecided`.
    public var launchSummary: String {
        "\(launchesAllowed) allowed, \(launchesRefused) refused, \(launchesWithin) within, \(launchesUndecided) undecided"
    }
}
