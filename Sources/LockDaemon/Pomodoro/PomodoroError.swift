import Foundation
import LockCore

/// Why a Pomodoro request was refused or failed. The run is unchanged when one is thrown.
public enum PomodoroError: Error, Equatable, Sendable {
    /// No profile has that name.
    case unknownProfile(String)
    /// A setting is out of range.
    case invalid(PomodoroConfigError)
    /// A run is under way already; only one runs at a time.
    case alreadyRunning(profile: String, status: String)
    /// No run is under way.
    case notRunning
    /// The machine refused the operation (strict mode, or the run's state).
    case refused(PomodoroRefusal)
    /// The run could not be saved.
    case storage(StorageFailure)
    /// The run's session could not be put in place.
    case session(SessionError)
}

/// What can be done to a running Pomodoro.
public enum PomodoroOperation: String, Sendable, CaseIterable {
    case pause, resume, skip, stop, next
}

/// The settings a run is started with; absent ones take the configured defaults.
public struct PomodoroStart: Sendable, Equatable {
    /// The profile focus phases block.
    public var profile: String
    /// Phase lengths.
    public var focus: Duration?
    public var shortBreak: Duration?
    public var longBreak: Duration?
    /// A long break after every n-th focus phase.
    public var longEvery: Int?
    /// Number of focus phases; nil: the default.
    public var cycles: Int?
    /// Wait for `next` at each phase end.
    public var manual: Bool?
    /// Strictness; nil: the profile's default.
    public var strict: Bool?
    /// Where focus phases block.
    public var target: BlockTarget

    /// Creates settings.
    public init(
        profile: String, focus: Duration? = nil, shortBreak: Duration? = nil, longBreak: Duration? = nil,
        longEvery: Int? = nil, cycles: Int? = nil, manual: Bool? = nil, strict: Bool? = nil,
        target: BlockTarget = .thisMachine
    ) {
        self.target = target
        self.profile = profile
        self.focus = focus
        self.shortBreak = shortBreak
        self.longBreak = longBreak
        self.longEvery = longEvery
        self.cycles = cycles
        self.manual = manual
        self.strict = strict
    }
}

/// The Pomodoro timer as it stands.
public struct PomodoroView: Sendable, Equatable {
    /// The machine's status now.
    public var status: PomodoroStatus
    /// The run's profile.
    public var profile: String
    /// When the run started.
    public var startedAt: Date
    /// Its settings.
    public var settings: PomodoroConfig
    /// Its session, while one is in force.
    public var session: String?
    /// Why its session could not be put in place, if so.
    public var problem: String?
}
