import Foundation

/// A pomodoro run saved for a daemon restart; turn it back into a run with
/// `PomodoroMachine.restore(_:at:)`.
///
/// The boot-clock deadline of a running phase is only trusted within the boot recorded in the
/// checkpoint; after a reboot the checkpoint's remaining time and wall time are used instead.
/// Durations are stored in whole nanoseconds so the round trip is exact. Decoding checks the
/// values against each other and against the (validated) configuration.
public struct PomodoroSnapshot: Sendable, Equatable, Codable {
    /// The format version written by this code.
    public static let currentVersion = 1

    /// The run's configuration.
    public let config: PomodoroConfig
    /// Where the run stood when saved.
    public let state: PomodoroRunState
    /// The number of the current (or last) focus phase.
    public let cycle: Int
    /// How many focus phases ran their full time.
    public let completedFocusPhases: Int
    /// Wall time at which the running or paused phase started.
    public let phaseStartedAt: Date?
    /// Remaining time, wall time and boot at the last checkpoint.
    public let checkpoint: PomodoroCheckpoint
    /// Time of the current phase that passed unwatched, so far.
    public let unwatched: Duration

    init(
        config: PomodoroConfig, state: PomodoroRunState, cycle: Int, completedFocusPhases: Int,
        phaseStartedAt: Date?, checkpoint: PomodoroCheckpoint, unwatched: Duration
    ) {
        self.config = config
        self.state = state
        self.cycle = cycle
        self.completedFocusPhases = completedFocusPhases
        self.phaseStartedAt = phaseStartedAt
        self.checkpoint = checkpoint
        self.unwatched = unwatched
    }

    private enum CodingKeys: String, CodingKey {
        case version, config, state, phase, deadline, remainingNanoseconds, finishReason
        case cycle, completedFocusPhases, phaseStartedAt, checkpoint, unwatchedNanoseconds
    }

    /// Decodes and rejects combinations the machine can never produce, so that a damaged or
    /// hand-edited file cannot yield a run that behaves strangely.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "unsupported pomodoro snapshot version \(version)")
        }
        config = try c.decode(PomodoroConfig.self, forKey: .config)
        cycle = try c.decode(Int.self, forKey: .cycle)
        completedFocusPhases = try c.decode(Int.self, forKey: .completedFocusPhases)
        phaseStartedAt = try c.decodeIfPresent(Date.self, forKey: .phaseStartedAt)
        checkpoint = try c.decode(PomodoroCheckpoint.self, forKey: .checkpoint)
        unwatched = .nanoseconds(try c.decodeIfPresent(Int64.self, forKey: .unwatchedNanoseconds) ?? 0)
        let stateName = try c.decode(String.self, forKey: .state)
        switch stateName {
        case "running":
            state = .running(
                try c.decode(PomodoroPhase.self, forKey: .phase), deadline: try c.decode(BootTime.self, forKey: .deadline))
        case "paused":
            state = .paused(
                try c.decode(PomodoroPhase.self, forKey: .phase),
                remaining: .nanoseconds(try c.decode(Int64.self, forKey: .remainingNanoseconds)))
        case "waiting":
            state = .waiting(next: try c.decode(PomodoroPhase.self, forKey: .phase))
        case "finished":
            state = .finished(try c.decode(PomodoroFinishReason.self, forKey: .finishReason))
        default:
            throw DecodingError.dataCorruptedError(forKey: .state, in: c, debugDescription: "unknown pomodoro state \(stateName)")
        }
        if let problem = inconsistency {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "inconsistent pomodoro snapshot: \(problem)"))
        }
    }

    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.currentVersion, forKey: .version)
        try c.encode(config, forKey: .config)
        try c.encode(state.name, forKey: .state)
        switch state {
        case .running(let phase, let deadline):
            try c.encode(phase, forKey: .phase)
            try c.encode(deadline, forKey: .deadline)
        case .paused(let phase, let remaining):
            try c.encode(phase, forKey: .phase)
            try c.encode(remaining.nanosecondsClamped, forKey: .remainingNanoseconds)
        case .waiting(let next):
            try c.encode(next, forKey: .phase)
        case .finished(let reason):
            try c.encode(reason, forKey: .finishReason)
        }
        try c.encode(cycle, forKey: .cycle)
        try c.encode(completedFocusPhases, forKey: .completedFocusPhases)
        try c.encodeIfPresent(phaseStartedAt, forKey: .phaseStartedAt)
        try c.encode(checkpoint, forKey: .checkpoint)
        try c.encode(unwatched.nanosecondsClamped, forKey: .unwatchedNanoseconds)
    }

    /// What is wrong with the values, or `nil` if a machine could have produced them.
    private var inconsistency: String? {
        if cycle < 1 { return "cycle \(cycle) is less than 1" }
        if completedFocusPhases < 0 || completedFocusPhases > cycle {
            return "\(completedFocusPhases) completed focus phases in cycle \(cycle)"
        }
        if let cycles = config.cycles, cycle > cycles { return "cycle \(cycle) of \(cycles)" }
        if unwatched < .zero { return "negative unwatched time" }
        if let phase = state.phase, unwatched > config.duration(of: phase) {
            return
                "\(DurationParser.formatExact(unwatched)) unwatched in a \(DurationParser.formatExact(config.duration(of: phase))) \(phase)"
        }
        // Which phase may come up is fully determined by the cycle and the configuration.
        func allowed(_ phase: PomodoroPhase, waiting: Bool) -> Bool {
            switch phase {
            case .focus:
                // A running focus phase is cycle `cycle` itself; a waiting one will be the next.
                return !waiting || (config.cycles.map { cycle < $0 } ?? true)
            case .shortBreak, .longBreak:
                return config.phase(after: .focus, cycle: cycle) == phase
            }
        }
        switch state {
        case .running(let phase, _):
            if !allowed(phase, waiting: false) { return "a \(phase) in cycle \(cycle)" }
            // After a reboot this is all the time the phase gets, so it must not exceed the phase.
            if checkpoint.remaining > config.duration(of: phase) {
                return
                    "\(DurationParser.formatExact(checkpoint.remaining)) left of a \(DurationParser.formatExact(config.duration(of: phase))) \(phase)"
            }
        case .paused(let phase, let remaining):
            if !allowed(phase, waiting: false) { return "a \(phase) in cycle \(cycle)" }
            if remaining <= .zero || remaining > config.duration(of: phase) {
                return
                    "paused with \(DurationParser.formatExact(remaining)) left of a \(DurationParser.formatExact(config.duration(of: phase))) \(phase)"
            }
        case .waiting(let next):
            if !allowed(next, waiting: true) { return "waiting for a \(next) after cycle \(cycle)" }
        case .finished:
            break
        }
        return nil
    }
}
