import Foundation

/// Where a pomodoro run stands.
public enum PomodoroRunState: Sendable, Equatable {
    /// A phase is counting down; it ends when the boot clock reaches `deadline`.
    case running(PomodoroPhase, deadline: BootTime)
    /// A phase is frozen with `remaining` time left (always more than zero).
    case paused(PomodoroPhase, remaining: Duration)
    /// Manual mode: the previous phase's time is up and `next` phase waits for an explicit `next`.
    case waiting(next: PomodoroPhase)
    /// The run is over; nothing will happen any more.
    case finished(PomodoroFinishReason)

    /// The phase that is running or paused; `nil` while waiting or finished.
    public var phase: PomodoroPhase? {
        switch self {
        case .running(let phase, _), .paused(let phase, _): phase
        case .waiting, .finished: nil
        }
    }

    /// A one-word name for the state: "running", "paused", "waiting" or "finished".
    public var name: String {
        switch self {
        case .running: "running"
        case .paused: "paused"
        case .waiting: "waiting"
        case .finished: "finished"
        }
    }
}
