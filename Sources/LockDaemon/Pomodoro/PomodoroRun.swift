import Foundation
import LockCore

/// A Pomodoro run as the daemon saves it: the machine's snapshot, plus what the machine does
/// not know about (the profile it blocks, an identifier for the history).
struct PomodoroRun: Sendable, Codable {
    /// Identifies the run in the focus history.
    var id: String
    /// The profile its focus phases block.
    var profile: String
    /// When it was started.
    var startedAt: Date
    /// The machine at the last change or checkpoint.
    var snapshot: PomodoroSnapshot
    /// Where its focus phases block; nil (runs saved before targets existed): this machine.
    var target: BlockTarget?
}
