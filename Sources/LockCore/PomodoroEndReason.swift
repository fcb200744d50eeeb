import Foundation

/// Why a phase ended.
public enum PomodoroEndReason: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Its time ran out.
    case completed
    /// The user skipped it.
    case skipped
    /// The user stopped the whole run during it.
    case stopped

    /// The raw value.
    public var description: String { rawValue }
}
