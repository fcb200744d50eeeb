/// What the planner needs to know about the session a schedule owns right now.
public struct ScheduleSessionState: Sendable, Equatable {
    /// The profile it blocks.
    public var profile: String
    /// Time left on the boot clock.
    public var remaining: Duration
    /// Whether a user may stop it.
    public var strict: Bool

    /// Creates a state.
    public init(profile: String, remaining: Duration, strict: Bool) {
        self.profile = profile
        self.remaining = remaining
        self.strict = strict
    }
}
