import Foundation

/// One kind of pomodoro phase.
///
/// The raw values are the spellings used on the command line, in JSON and in error messages.
public enum PomodoroPhase: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Work time: the linked profile is blocked.
    case focus
    /// The break after a focus phase that is not a multiple of `longEvery`.
    case shortBreak = "short-break"
    /// The break after every `longEvery`-th focus phase.
    case longBreak = "long-break"

    /// Whether this phase blocks the linked profile.
    public var isFocus: Bool { self == .focus }

    /// Whether this phase is one of the breaks.
    public var isBreak: Bool { self != .focus }

    /// Human-readable name: "focus", "short break", "long break".
    public var displayName: String {
        switch self {
        case .focus: "focus"
        case .shortBreak: "short break"
        case .longBreak: "long break"
        }
    }

    /// The same as `displayName`.
    public var description: String { displayName }
}
