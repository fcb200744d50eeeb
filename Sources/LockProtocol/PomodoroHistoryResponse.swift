/// `GET /v1/pomodoro/history`: completed focus phases and totals.
public struct PomodoroHistoryResponse: Sendable, Equatable, Codable {
    /// The most recent completed focus phases, newest first.
    public var entries: [PomodoroFocusEntry]
    /// Completed focus phases ever recorded.
    public var pomodoros: Int
    /// Focus time they were credited with, in seconds.
    public var focusedSeconds: Double

    /// Creates a response.
    public init(entries: [PomodoroFocusEntry], pomodoros: Int, focusedSeconds: Double) {
        self.entries = entries
        self.pomodoros = pomodoros
        self.focusedSeconds = focusedSeconds
    }
}
