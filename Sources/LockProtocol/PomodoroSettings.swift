/// How a Pomodoro run is paced, as clients see it.
public struct PomodoroSettings: Sendable, Equatable, Codable {
    /// Length of a focus phase, in seconds.
    public var focusSeconds: Double
    /// Length of a short break, in seconds.
    public var shortBreakSeconds: Double
    /// Length of a long break, in seconds.
    public var longBreakSeconds: Double
    /// A long break follows every `longEvery`-th focus phase.
    public var longEvery: Int
    /// Number of focus phases; nil repeats until stopped.
    public var cycles: Int?
    /// Phases wait for `next`.
    public var manual: Bool
    /// Focus phases cannot be skipped or stopped.
    public var strict: Bool

    /// Creates the value field by field.
    public init(
        focusSeconds: Double, shortBreakSeconds: Double, longBreakSeconds: Double, longEvery: Int, cycles: Int? = nil, manual: Bool,
        strict: Bool
    ) {
        self.focusSeconds = focusSeconds
        self.shortBreakSeconds = shortBreakSeconds
        self.longBreakSeconds = longBreakSeconds
        self.longEvery = longEvery
        self.cycles = cycles
        self.manual = manual
        self.strict = strict
    }
}
