/// What can be done to a running Pomodoro: `POST /v1/pomodoro/{action}`.
public enum PomodoroAction: String, Sendable, Codable, CaseIterable {
    /// Freeze the remaining time of the phase (the block is lifted unless strict).
    case pause
    /// Continue a paused phase.
    case resume
    /// End the phase now and start the next (refused for strict focus phases).
    case skip
    /// End the run (refused during strict focus phases).
    case stop
    /// Start the phase that is waiting (manual mode, or after a missed phase end).
    case next
}
