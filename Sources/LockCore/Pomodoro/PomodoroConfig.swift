import Foundation

/// How a pomodoro run is paced: phase lengths, long-break cadence, number of cycles and modes.
///
/// In JSON, durations are numbers of seconds and missing keys take their defaults, so a
/// configuration file only needs to mention what it changes. Decoding validates.
public struct PomodoroConfig: Sendable, Equatable, Codable {
    /// The shortest phase accepted. One second rather than a minute so that tests and demos can
    /// run whole cycles quickly.
    public static let minimumPhase: Duration = .seconds(1)
    /// The longest phase accepted; anything longer is almost certainly a typo ("30h" for "30m").
    public static let maximumPhase: Duration = .seconds(12 * 3600)

    /// Length of a focus phase (default 25 minutes).
    public var focus: Duration
    /// Length of a short break (default 5 minutes).
    public var shortBreak: Duration
    /// Length of a long break (default 15 minutes).
    public var longBreak: Duration
    /// A long break follows every `longEvery`-th focus phase (default 4).
    public var longEvery: Int
    /// Total number of focus phases; the run finishes right after the last one. `nil` repeats
    /// until stopped.
    public var cycles: Int?
    /// When true, a phase whose time is up waits for an explicit `next` instead of the next
    /// phase starting by itself.
    public var manual: Bool
    /// When true, a focus phase cannot be skipped or stopped, and pausing it keeps the block.
    public var strict: Bool

    /// Creates a configuration; call `validate()` (or `PomodoroMachine.start`) to check it.
    public init(
        focus: Duration = .seconds(25 * 60),
        shortBreak: Duration = .seconds(5 * 60),
        longBreak: Duration = .seconds(15 * 60),
        longEvery: Int = 4,
        cycles: Int? = nil,
        manual: Bool = false,
        strict: Bool = false
    ) {
        self.focus = focus
        self.shortBreak = shortBreak
        self.longBreak = longBreak
        self.longEvery = longEvery
        self.cycles = cycles
        self.manual = manual
        self.strict = strict
    }

    /// Throws the first problem found, checking fields in declaration order.
    public func validate() throws(PomodoroConfigError) {
        for phase in PomodoroPhase.allCases {
            let value = duration(of: phase)
            if value < Self.minimumPhase { throw .phaseTooShort(phase, value) }
            if value > Self.maximumPhase { throw .phaseTooLong(phase, value) }
        }
        if longEvery < 1 { throw .longEveryTooSmall(longEvery) }
        if let cycles, cycles < 1 { throw .cyclesTooSmall(cycles) }
    }

    /// The configured length of `phase`.
    public func duration(of phase: PomodoroPhase) -> Duration {
        switch phase {
        case .focus: focus
        case .shortBreak: shortBreak
        case .longBreak: longBreak
        }
    }

    /// The phase that follows `phase` when `cycle` is the number of the current (or last) focus
    /// phase; `nil` when the run finishes instead (only ever right after the last focus phase).
    public func phase(after phase: PomodoroPhase, cycle: Int) -> PomodoroPhase? {
        switch phase {
        case .shortBreak, .longBreak:
            return .focus
        case .focus:
            if let cycles, cycle >= cycles { return nil }
            return cycle % longEvery == 0 ? .longBreak : .shortBreak
        }
    }

    private enum CodingKeys: String, CodingKey {
        case focus, shortBreak, longBreak, longEvery, cycles, manual, strict
    }

    /// Decodes from JSON with durations in seconds, filling in defaults, and validates.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = PomodoroConfig()
        func seconds(_ key: CodingKeys, _ fallback: Duration) throws -> Duration {
            try c.decodeIfPresent(Double.self, forKey: key).map(PomodoroDurations.fromSeconds) ?? fallback
        }
        self.init(
            focus: try seconds(.focus, defaults.focus),
            shortBreak: try seconds(.shortBreak, defaults.shortBreak),
            longBreak: try seconds(.longBreak, defaults.longBreak),
            longEvery: try c.decodeIfPresent(Int.self, forKey: .longEvery) ?? defaults.longEvery,
            cycles: try c.decodeIfPresent(Int.self, forKey: .cycles),
            manual: try c.decodeIfPresent(Bool.self, forKey: .manual) ?? defaults.manual,
            strict: try c.decodeIfPresent(Bool.self, forKey: .strict) ?? defaults.strict
        )
        do {
            try validate()
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes with durations as seconds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(focus.seconds, forKey: .focus)
        try c.encode(shortBreak.seconds, forKey: .shortBreak)
        try c.encode(longBreak.seconds, forKey: .longBreak)
        try c.encode(longEvery, forKey: .longEvery)
        try c.encodeIfPresent(cycles, forKey: .cycles)
        try c.encode(manual, forKey: .manual)
        try c.encode(strict, forKey: .strict)
    }
}
