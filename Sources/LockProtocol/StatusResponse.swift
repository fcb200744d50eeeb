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

    /// Creates a status.
    public init(version: String, now: Date, sessions: [SessionInfo], blockedNames: Int,
                enforcers: [EnforcerReport], notices: [String] = []) {
        self.version = version
        self.now = now
        self.sessions = sessions
        self.blockedNames = blockedNames
        self.enforcers = enforcers
        self.notices = notices
    }
}
