import Foundation

/// One event on `GET /v1/events`, sent as a single line of JSON.
public struct Event: Sendable, Equatable, Codable {
    /// Kinds of events.
    public enum Kind: String, Sendable, Codable {
        /// A session started.
        case sessionStarted = "session.started"
        /// A session ended (see `reason`).
        case sessionEnded = "session.ended"
        /// A session was extended.
        case sessionExtended = "session.extended"
        /// Profiles changed (created, edited, deleted, reloaded).
        case profilesChanged = "profiles.changed"
        /// An enforcer failed.
        case enforcementFailed = "enforcement.failed"
        /// A schedule starts or ends soon.
        case scheduleWarning = "schedule.warning"
        /// An allowance's time is nearly used up (`--warn`).
        case allowanceWarning = "allowance.warning"
        /// An allowance's open limit refused a launch of one of its apps: no launch left today
        /// (`reason` `no-opens-left`, back at `until`) or cooling down (`cooling-down`, `waitSeconds` left).
        case allowanceOpenRefused = "allowance.open_refused"
        /// A Pomodoro phase changed.
        case pomodoroPhase = "pomodoro.phase"
        /// A block stopped a site: a lookup (or connection) of a blocked name; repeats of the
        /// same name from the same client within 10 s are one.
        case siteBlocked = "site.blocked"
        /// A block stopped an app from starting.
        case appBlocked = "app.blocked"
        /// Sent once when a client subscribes, so it knows the stream is live.
        case hello
        /// The daemon is shutting down: the last event of every stream.
        case stopping = "daemon.stopping"
    }

    /// What happened.
    public var type: Kind
    /// When (RFC 3339).
    public var at: Date
    /// A sentence for people.
    public var message: String
    /// The profile concerned, if any.
    public var profile: String?
    /// The session concerned, if any.
    public var session: SessionInfo?
    /// Why a session ended (`expired`, `stopped`, `daemon-restart`, `unlocked`).
    public var reason: String?
    /// Further facts (schedule name, phase, …).
    public var details: [String: String]?

    /// Creates an event.
    public init(
        type: Kind, at: Date, message: String, profile: String? = nil, session: SessionInfo? = nil,
        reason: String? = nil, details: [String: String]? = nil
    ) {
        self.type = type
        self.at = at
        self.message = message
        self.profile = profile
        self.session = session
        self.reason = reason
        self.details = details
    }
}
