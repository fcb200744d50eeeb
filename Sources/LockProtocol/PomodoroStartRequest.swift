/// `POST /v1/pomodoro`: start a Pomodoro run linked to a profile. Absent values take the
/// defaults of the `[pomodoro]` section of simplylockd.toml.
public struct PomodoroStartRequest: Sendable, Equatable, Codable {
    /// The profile that focus phases block.
    public var profile: String
    /// Length of a focus phase, in seconds.
    public var focusSeconds: Double?
    /// Length of a short break, in seconds.
    public var shortBreakSeconds: Double?
    /// Length of a long break, in seconds.
    public var longBreakSeconds: Double?
    /// A long break follows every `longEvery`-th focus phase.
    public var longEvery: Int?
    /// Number of focus phases; the run finishes after the last. Absent: the configured default
    /// (which may be to repeat until stopped).
    public var cycles: Int?
    /// Wait for `next` at the end of each phase instead of going on by itself.
    public var manual: Bool?
    /// Focus phases cannot be skipped or stopped, and pausing one keeps the block. Absent: the
    /// profile's default.
    public var strict: Bool?
    /// Where focus phases block (`local`, `lan`, device groups); absent: this machine.
    public var target: [String]?

    /// Creates a request.
    public init(
        profile: String, focusSeconds: Double? = nil, shortBreakSeconds: Double? = nil,
        longBreakSeconds: Double? = nil, longEvery: Int? = nil, cycles: Int? = nil,
        manual: Bool? = nil, strict: Bool? = nil, target: [String]? = nil
    ) {
        self.target = target
        self.profile = profile
        self.focusSeconds = focusSeconds
        self.shortBreakSeconds = shortBreakSeconds
        self.longBreakSeconds = longBreakSeconds
        self.longEvery = longEvery
        self.cycles = cycles
        self.manual = manual
        self.strict = strict
    }
}
