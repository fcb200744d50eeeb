import Foundation
import LockCore

/// A Pomodoro event as the event stream's `details`: every field of the event's JSON form as
/// text, `type` named `event`, `at` left out (it is the event's own time), read from the typed
/// event rather than through a JSON round trip.
enum PomodoroEventWire {
    static func details(_ event: PomodoroEvent, run: String) -> [String: String] {
        var details = ["run": run, "event": event.type]
        func cycle(_ number: Int, _ total: Int?) {
            details["cycle"] = "\(number)"
            if let total { details["cycles"] = "\(total)" }
        }
        switch event {
        case .phaseStarted(let phase, let number, let total, let duration, _, let endsAt):
            details["phase"] = phase.rawValue
            cycle(number, total)
            details["durationSeconds"] = seconds(duration)
            details["endsAt"] = time(endsAt)
        case .phaseEnded(let phase, let number, let total, let reason, let elapsed, _):
            details["phase"] = phase.rawValue
            cycle(number, total)
            details["reason"] = reason.rawValue
            details["elapsedSeconds"] = seconds(elapsed)
        case .focusCompleted(let number, let total, let focused, let startedAt, _):
            cycle(number, total)
            details["focusedSeconds"] = seconds(focused)
            details["startedAt"] = time(startedAt)
        case .paused(let phase, let number, let total, let remaining, _):
            details["phase"] = phase.rawValue
            cycle(number, total)
            details["remainingSeconds"] = seconds(remaining)
        case .resumed(let phase, let number, let total, let endsAt, _):
            details["phase"] = phase.rawValue
            cycle(number, total)
            details["endsAt"] = time(endsAt)
        case .waiting(let next, let number, let total, _):
            details["next"] = next.rawValue
            cycle(number, total)
        case .runFinished(let reason, let completed, _):
            details["reason"] = reason.rawValue
            details["completedFocusPhases"] = "\(completed)"
        }
        return details
    }

    /// Whole seconds without a fraction (`1500`), others as JSON writes them (`0.25`).
    static func seconds(_ duration: Duration) -> String {
        let value = duration.seconds
        return value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }

    /// RFC 3339 in UTC, as the API's dates are.
    static func time(_ date: Date) -> String { date.formatted(.iso8601) }
}
