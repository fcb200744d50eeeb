import Foundation

/// One completed focus phase (a pomodoro) in the history.
public struct PomodoroFocusEntry: Sendable, Equatable, Codable {
    /// The run it belongs to.
    public var run: String
    /// The profile it blocked.
    public var profile: String
    /// Its number in the run.
    public var cycle: Int
    /// The run's configured number of focus phases; absent when it repeated until stopped.
    public var cycles: Int?
    /// When it started.
    public var startedAt: Date
    /// When it ended.
    public var endedAt: Date
    /// Focus time credited: the time it ran while the daemon watched it, pauses excluded.
    public var focusedSeconds: Double

    /// Creates an entry.
    public init(run: String, profile: String, cycle: Int, cycles: Int?, startedAt: Date, endedAt: Date, focusedSeconds: Double) {
        self.run = run
        self.profile = profile
        self.cycle = cycle
        self.cycles = cycles
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.focusedSeconds = focusedSeconds
    }
}
