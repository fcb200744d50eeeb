import Foundation
import LockCore

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

    /// Creates the wire form of `session` as it looks at `now`.
    public init(_ session: Session, at now: ClockReading) {
        id = session.id
        profile = session.profile
        origin = session.origin.rawValue
        strict = session.strict
        target = session.target.names
        startedAt = session.startedAt
        let remaining = session.remaining(at: now)
        remainingSeconds = Int(remaining.seconds.rounded(.up))
        endsAt = now.wall.addingTimeInterval(Double(remainingSeconds))
        blockedNames = session.rules.exactNameCount
        apps = session.rules.apps.map(\.id)
        missingApps = session.rules.missingApps
    }
}
