import Foundation

/// One completed Pomodoro focus phase, as the history keeps it.
public struct FocusRecord: Sendable, Equatable {
    /// The run it belongs to.
    public var run: String
    /// The profile it blocked.
    public var profile: String
    /// Its number in the run.
    public var cycle: Int
    /// The run's configured number of focus phases; nil when it repeated until stopped.
    public var cycles: Int?
    /// When it started.
    public var startedAt: Date
    /// When it ended.
    public var endedAt: Date
    /// Focus time credited: the time it ran while the daemon watched it, pauses excluded.
    public var focused: Duration

    /// Creates a record.
    public init(run: String, profile: String, cycle: Int, cycles: Int?, startedAt: Date, endedAt: Date, focused: Duration) {
        self.run = run
        self.profile = profile
        self.cycle = cycle
        self.cycles = cycles
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.focused = focused
    }
}

/// The most recent focus phases and the totals over all of them.
public struct FocusHistory: Sendable, Equatable {
    /// Newest first.
    public var records: [FocusRecord]
    /// Completed focus phases ever recorded.
    public var count: Int
    /// Focus time they were credited with.
    public var focused: Duration

    /// Creates a history.
    public init(records: [FocusRecord], count: Int, focused: Duration) {
        self.records = records
        self.count = count
        self.focused = focused
    }
}
