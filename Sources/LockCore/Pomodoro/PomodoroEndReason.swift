import Foundation

/// Why a phase ended.
public enum PomodoroEndReason: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Its time ran out.
    case completed
    /// The user skipped it.
    case skipped
    /// The user stopped the whole run during it.
    case stopped
    /// Its time ran out while the daemon was not watching (not running, or the machine was
    /// asleep), noticed more than `PomodoroMachine.missedEndGrace` late. Not a completed
    /// pomodoro; the run then waits for `next`.
    case interrupted

    /// The raw value.
    public var description: String { rawValue }
}
