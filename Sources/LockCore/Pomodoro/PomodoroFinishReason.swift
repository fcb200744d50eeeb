import Foundation

/// Why a pomodoro run finished.
public enum PomodoroFinishReason: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The last of the configured `cycles` focus phases ended.
    case completed
    /// The user stopped the run.
    case stopped

    /// The raw value.
    public var description: String { rawValue }
}
