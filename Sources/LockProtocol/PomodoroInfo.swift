import Foundation

/// `GET /v1/pomodoro`: the Pomodoro timer as clients see it.
public struct PomodoroInfo: Sendable, Equatable, Codable {
    /// `none` (never started), `running`, `paused`, `waiting` (for `next`) or `finished`.
    public var state: String
    /// The linked profile.
    public var profile: String?
    /// The running or paused phase: `focus`, `short-break` or `long-break`.
    public var phase: String?
    /// The number of the current (or last) focus phase.
    public var cycle: Int?
    /// The configured number of focus phases; absent when the run repeats until stopped.
    public var cycles: Int?
    /// Whole seconds left in the running or paused phase, rounded up.
    public var remainingSeconds: Int?
    /// When the running phase ends, seen from the daemon's clock now.
    public var endsAt: Date?
    /// Whether the profile is blocked by the timer now.
    public var blocking: Bool
    /// The session that blocks the profile, while blocking.
    public var session: String?
    /// What comes after the current phase (or what `next` starts): a phase name, or `finish`.
    public var next: String?
    /// Length of the next phase, in seconds.
    public var nextSeconds: Int?
    /// Focus phases that ran their full time, witnessed by the daemon.
    public var completedFocusPhases: Int?
    /// `completed` or `stopped`, once finished.
    public var finishReason: String?
    /// When the run started.
    public var startedAt: Date?
    /// How the run is paced.
    public var settings: PomodoroSettings?
    /// One line for people: `focus, cycle 2 of 4, 12m30s left; next: short break 5m`.
    public var summary: String
    /// Why the timer cannot block its profile right now, if it cannot.
    public var problem: String?

    /// No run has been started.
    public static let none = PomodoroInfo(state: "none", blocking: false, summary: "no Pomodoro has been started")

    /// Creates an answer field by field.
    public init(
        state: String, profile: String? = nil, phase: String? = nil, cycle: Int? = nil, cycles: Int? = nil,
        remainingSeconds: Int? = nil, endsAt: Date? = nil, blocking: Bool, session: String? = nil,
        next: String? = nil, nextSeconds: Int? = nil, completedFocusPhases: Int? = nil,
        finishReason: String? = nil, startedAt: Date? = nil, settings: PomodoroSettings? = nil,
        summary: String, problem: String? = nil
    ) {
        self.state = state
        self.profile = profile
        self.phase = phase
        self.cycle = cycle
        self.cycles = cycles
        self.remainingSeconds = remainingSeconds
        self.endsAt = endsAt
        self.blocking = blocking
        self.session = session
        self.next = next
        self.nextSeconds = nextSeconds
        self.completedFocusPhases = completedFocusPhases
        self.finishReason = finishReason
        self.startedAt = startedAt
        self.settings = settings
        self.summary = summary
        self.problem = problem
    }

    /// Whether a run is under way (running, paused or waiting).
    public var isActive: Bool { state == "running" || state == "paused" || state == "waiting" }
}
