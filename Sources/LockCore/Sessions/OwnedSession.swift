/// A session that a subsystem owns (a schedule, the Pomodoro timer): what it wants in force,
/// or what is in force now.
public struct OwnedSession: Sendable, Equatable {
    /// The profile to block.
    public var profile: String
    /// How long from now the session should last.
    public var remaining: Duration
    /// Whether a user may stop it early.
    public var strict: Bool
    /// Where it blocks.
    public var target: BlockTarget

    /// Creates a desired owned session.
    public init(profile: String, remaining: Duration, strict: Bool, target: BlockTarget = .thisMachine) {
        self.profile = profile
        self.remaining = remaining
        self.strict = strict
        self.target = target
    }
}
