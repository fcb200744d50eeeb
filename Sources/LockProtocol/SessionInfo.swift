import Foundation

/// A session as clients see it.
public struct SessionInfo: Sendable, Equatable, Codable {
    /// The session's identifier.
    public var id: String
    /// The profile it blocks.
    public var profile: String
    /// `manual`, `schedule:NAME` or `pomodoro`.
    public var origin: String
    /// Whether it can be stopped early.
    public var strict: Bool
    /// Where it blocks: `local` (this machine), `lan`, device groups; sorted.
    public var target: [String]
    /// When it started (RFC 3339).
    public var startedAt: Date
    /// When it ends, seen from the daemon's clock now (RFC 3339).
    public var endsAt: Date
    /// Whole seconds left, rounded up.
    public var remainingSeconds: Int
    /// How many names it blocks (`www.` twins included).
    public var blockedNames: Int
    /// The ids of the apps it blocks, sorted.
    public var apps: [String]
    /// Apps its profile names that were not found installed when it started (or last took
    /// its profile's rules).
    public var missingApps: [String]
    /// Set when the block is saved but not yet in force, with why: a block aimed at the LAN
    /// while the LAN's DNS server does not take it (Unbound down). Absent when it is in force.
    public var notInForce: String?
    /// Set when the block names apps and no app enforcer in force keeps them, with why (no app
    /// enforcer running, or each failed); its sites are blocked all the same. Absent otherwise.
    public var appsNotBlocked: String?
    /// Path rules it holds, for the browser companion (absent when none).
    public var paths: [String]?
    /// Exceptions to paths and names, for the browser companion (absent when none).
    public var allowPaths: [String]?
    /// Keyword rules it holds, for the browser companion (absent when none).
    public var keywords: [String]?

    /// Creates the value field by field.
    public init(
        id: String, profile: String, origin: String, strict: Bool, target: [String], startedAt: Date, endsAt: Date, remainingSeconds: Int,
        blockedNames: Int, apps: [String], missingApps: [String], notInForce: String? = nil
    ) {
        self.id = id
        self.profile = profile
        self.origin = origin
        self.strict = strict
        self.target = target
        self.startedAt = startedAt
        self.endsAt = endsAt
        self.remainingSeconds = remainingSeconds
        self.blockedNames = blockedNames
        self.apps = apps
        self.missingApps = missingApps
        self.notInForce = notInForce
    }
}
