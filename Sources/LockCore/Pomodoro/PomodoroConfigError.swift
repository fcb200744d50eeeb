import Foundation

/// Why a pomodoro configuration was refused. Each message names the field and the value.
public enum PomodoroConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A phase is shorter than `PomodoroConfig.minimumPhase` (this includes zero and negative).
    case phaseTooShort(PomodoroPhase, Duration)
    /// A phase is longer than `PomodoroConfig.maximumPhase`.
    case phaseTooLong(PomodoroPhase, Duration)
    /// `longEvery` is less than 1.
    case longEveryTooSmall(Int)
    /// `cycles` is set and less than 1.
    case cyclesTooSmall(Int)

    /// The name of the offending field, spelled as on the command line.
    public var field: String {
        switch self {
        case .phaseTooShort(let phase, _), .phaseTooLong(let phase, _): phase.rawValue
        case .longEveryTooSmall: "long-every"
        case .cyclesTooSmall: "cycles"
        }
    }

    /// For example `focus: 0s must be at least 1s` or `long-break: 30h is too long (at most 12h)`.
    public var description: String { "\(field): \(reason)" }

    /// What is wrong, without the field name (for messages that name the field their own way,
    /// such as `simplylockd.toml:7: pomodoro.long_break: 30h is too long (at most 12h)`).
    public var reason: String {
        switch self {
        case .phaseTooShort(_, let value):
            "\(DurationParser.formatExact(value)) must be at least \(DurationParser.formatExact(PomodoroConfig.minimumPhase))"
        case .phaseTooLong(_, let value):
            "\(DurationParser.formatExact(value)) is too long (at most \(DurationParser.formatExact(PomodoroConfig.maximumPhase)))"
        case .longEveryTooSmall(let value), .cyclesTooSmall(let value):
            "\(value) must be at least 1"
        }
    }
}
