import LockCore

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

    /// The wire form of `config`.
    public init(_ config: PomodoroConfig) {
        focusSeconds = config.focus.seconds
        shortBreakSeconds = config.shortBreak.seconds
        longBreakSeconds = config.longBreak.seconds
        longEvery = config.longEvery
        cycles = config.cycles
        manual = config.manual
        strict = config.strict
    }
}
