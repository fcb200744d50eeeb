import Foundation

/// `GET /v1/status`: what is blocked now and how enforcement is doing.
public struct StatusResponse: Sendable, Equatable, Codable {
    /// The daemon's version.
    public var version: String
    /// The daemon's wall-clock time when it answered.
    public var now: Date
    /// Active sessions, earliest end first.
    public var sessions: [SessionInfo]
    /// Names blocked by the union of the sessions.
    public var blockedNames: Int
    /// One report per enforcer.
    public var enforcers: [EnforcerReport]
    /// Notices worth showing with the status (`mornings starts in 4m`).
    public var notices: [String]
    /// The last flush of the machine's resolver caches (absent when the daemon leaves them alone,
    /// under a scratch root, or before the first change).
    public var resolverCaches: ResolverCacheReport?
    /// The time allowances with what is used and left (time, launches, cooldown); absent from
    /// daemons without them.
    public var allowances: [TimeAllowanceInfo]?

    /// Creates a status.
    public init(
        version: String, now: Date, sessions: [SessionInfo], blockedNames: Int,
        enforcers: [EnforcerReport], notices: [String] = [], resolverCaches: ResolverCacheReport? = nil,
        allowances: [TimeAllowanceInfo]? = nil
    ) {
        self.allowances = allowances
        self.resolverCaches = resolverCaches
        self.version = version
        self.now = now
        self.sessions = sessions
        self.blockedNames = blockedNames
        self.enforcers = enforcers
        self.notices = notices
    }
}

/// The last flush of the machine's resolver caches, done at every change of the blocked set.
public struct ResolverCacheReport: Sendable, Equatable, Codable {
    /// When.
    public var at: Date
    /// Caches flushed (`systemd-resolved`, `nscd`).
    public var flushed: [String]
    /// Caches that do not run here.
    public var notRunning: [String]
    /// Caches that could not be flushed, each with why.
    public var failures: [String]

    /// Creates a report.
    public init(at: Date, flushed: [String], notRunning: [String], failures: [String]) {
        self.at = at
        self.flushed = flushed
        self.notRunning = notRunning
        self.failures = failures
    }
}
