import Foundation

/// Why a pomodoro operation was refused. The machine is unchanged when one is thrown.
public enum PomodoroRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The run has finished; only a new `start` makes sense.
    case finished
    /// `pause` while the phase is already paused.
    case alreadyPaused(PomodoroPhase)
    /// `resume` while the phase is running.
    case notPaused(PomodoroPhase)
    /// Manual mode: no phase is running, `next` must start the waiting one first.
    case waitingForNext(PomodoroPhase)
    /// `next` while a phase is running (or paused): `next` only starts a phase whose
    /// predecessor's time is up.
    case phaseInProgress(PomodoroPhase, paused: Bool)
    /// Strict mode: a focus phase cannot be skipped.
    case strictSkip
    /// Strict mode: a run cannot be stopped during a focus phase.
    case strictStop

    /// True for refusals imposed by strict mode (a policy refusal, HTTP 409 on the control
    /// API), false for operations that make no sense in the current state.
    public var isStrict: Bool {
        switch self {
        case .strictSkip, .strictStop: true
        default: false
        }
    }

    /// A stable machine-readable code for the control API's error body.
    public var code: String {
        switch self {
        case .finished: "pomodoro_finished"
        case .alreadyPaused: "pomodoro_already_paused"
        case .notPaused: "pomodoro_not_paused"
        case .waitingForNext: "pomodoro_waiting"
        case .phaseInProgress: "pomodoro_phase_in_progress"
        case .strictSkip, .strictStop: "strict"
        }
    }

    /// A message that says what is wrong and what to do instead.
    public var description: String {
        switch self {
        case .finished:
            "the pomodoro run has finished; start a new one"
        case .alreadyPaused(let phase):
            "the \(phase) is already paused; use resume to continue it"
        case .notPaused(let phase):
            "the \(phase) is running, not paused"
        case .waitingForNext(let phase):
            "no phase is running: the \(phase) is waiting for next to start it"
        case .phaseInProgress(let phase, let paused):
            paused
                ? "the \(phase) is paused, not over; resume it, or skip it to move on"
                : "the \(phase) is still running; next only starts a phase once the previous one is over (skip ends it early)"
        case .strictSkip:
            "strict mode: a focus phase cannot be skipped"
        case .strictStop:
            "strict mode: the run cannot be stopped during a focus phase (it can be stopped in a break)"
        }
    }
}
