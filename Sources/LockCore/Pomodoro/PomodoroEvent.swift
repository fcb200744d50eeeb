import Foundation

/// Something that happened in a pomodoro run, for the event stream and the history.
///
/// Times are wall-clock estimates derived from the boot clock at the moment the event was
/// produced, so phase ends caught up after a suspend carry the time they really happened.
/// `cycle` is the number of the focus phase the event belongs to (breaks belong to the focus
/// phase before them); `cycles` is the configured total, `nil` when the run repeats.
///
/// JSON form: one flat object with a `type` key (the case name), durations in seconds.
public enum PomodoroEvent: Sendable, Equatable, Codable {
    /// A phase began; it is due to end at `endsAt`.
    case phaseStarted(phase: PomodoroPhase, cycle: Int, cycles: Int?, duration: Duration, at: Date, endsAt: Date)
    /// A phase ended; `elapsed` is the time it actually ran while the daemon watched it
    /// (pauses and time the daemon was not running excluded).
    case phaseEnded(phase: PomodoroPhase, cycle: Int, cycles: Int?, reason: PomodoroEndReason, elapsed: Duration, at: Date)
    /// A focus phase ran its full time and its end was witnessed (skipped, stopped and
    /// interrupted ones do not count); the history records one pomodoro of `focused` time,
    /// the watched part, for each.
    case focusCompleted(cycle: Int, cycles: Int?, focused: Duration, startedAt: Date, at: Date)
    /// The running phase was frozen with `remaining` left.
    case paused(phase: PomodoroPhase, cycle: Int, cycles: Int?, remaining: Duration, at: Date)
    /// The paused phase continues and is now due to end at `endsAt`.
    case resumed(phase: PomodoroPhase, cycle: Int, cycles: Int?, endsAt: Date, at: Date)
    /// Manual mode: `next` is waiting for an explicit `next`; `cycle` is the cycle it will
    /// belong to once started.
    case waiting(next: PomodoroPhase, cycle: Int, cycles: Int?, at: Date)
    /// The run is over.
    case runFinished(reason: PomodoroFinishReason, completedFocusPhases: Int, at: Date)

    /// When the event happened (wall clock).
    public var at: Date {
        switch self {
        case .phaseStarted(_, _, _, _, let at, _), .phaseEnded(_, _, _, _, _, let at),
            .focusCompleted(_, _, _, _, let at), .paused(_, _, _, _, let at),
            .resumed(_, _, _, _, let at), .waiting(_, _, _, let at), .runFinished(_, _, let at):
            at
        }
    }

    /// The case name, which is also the `type` key of the JSON form.
    public var type: String {
        switch self {
        case .phaseStarted: "phaseStarted"
        case .phaseEnded: "phaseEnded"
        case .focusCompleted: "focusCompleted"
        case .paused: "paused"
        case .resumed: "resumed"
        case .waiting: "waiting"
        case .runFinished: "runFinished"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case type, phase, next, cycle, cycles, reason, at, endsAt, startedAt
        case durationSeconds, elapsedSeconds, focusedSeconds, remainingSeconds, completedFocusPhases
    }

    /// Decodes the flat JSON form.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func seconds(_ key: CodingKeys) throws -> Duration {
            PomodoroDurations.fromSeconds(try c.decode(Double.self, forKey: key))
        }
        let at = try c.decode(Date.self, forKey: .at)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "phaseStarted":
            self = .phaseStarted(
                phase: try c.decode(PomodoroPhase.self, forKey: .phase), cycle: try c.decode(Int.self, forKey: .cycle),
                cycles: try c.decodeIfPresent(Int.self, forKey: .cycles), duration: try seconds(.durationSeconds),
                at: at, endsAt: try c.decode(Date.self, forKey: .endsAt))
        case "phaseEnded":
            self = .phaseEnded(
                phase: try c.decode(PomodoroPhase.self, forKey: .phase), cycle: try c.decode(Int.self, forKey: .cycle),
                cycles: try c.decodeIfPresent(Int.self, forKey: .cycles),
                reason: try c.decode(PomodoroEndReason.self, forKey: .reason), elapsed: try seconds(.elapsedSeconds), at: at)
        case "focusCompleted":
            self = .focusCompleted(
                cycle: try c.decode(Int.self, forKey: .cycle), cycles: try c.decodeIfPresent(Int.self, forKey: .cycles),
                focused: try seconds(.focusedSeconds), startedAt: try c.decode(Date.self, forKey: .startedAt), at: at)
        case "paused":
            self = .paused(
                phase: try c.decode(PomodoroPhase.self, forKey: .phase), cycle: try c.decode(Int.self, forKey: .cycle),
                cycles: try c.decodeIfPresent(Int.self, forKey: .cycles), remaining: try seconds(.remainingSeconds), at: at)
        case "resumed":
            self = .resumed(
                phase: try c.decode(PomodoroPhase.self, forKey: .phase), cycle: try c.decode(Int.self, forKey: .cycle),
                cycles: try c.decodeIfPresent(Int.self, forKey: .cycles), endsAt: try c.decode(Date.self, forKey: .endsAt), at: at)
        case "waiting":
            self = .waiting(
                next: try c.decode(PomodoroPhase.self, forKey: .next), cycle: try c.decode(Int.self, forKey: .cycle),
                cycles: try c.decodeIfPresent(Int.self, forKey: .cycles), at: at)
        case "runFinished":
            self = .runFinished(
                reason: try c.decode(PomodoroFinishReason.self, forKey: .reason),
                completedFocusPhases: try c.decode(Int.self, forKey: .completedFocusPhases), at: at)
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown pomodoro event type \(type)")
        }
    }

    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(at, forKey: .at)
        switch self {
        case .phaseStarted(let phase, let cycle, let cycles, let duration, _, let endsAt):
            try c.encode(phase, forKey: .phase)
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
            try c.encode(duration.seconds, forKey: .durationSeconds)
            try c.encode(endsAt, forKey: .endsAt)
        case .phaseEnded(let phase, let cycle, let cycles, let reason, let elapsed, _):
            try c.encode(phase, forKey: .phase)
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
            try c.encode(reason, forKey: .reason)
            try c.encode(elapsed.seconds, forKey: .elapsedSeconds)
        case .focusCompleted(let cycle, let cycles, let focused, let startedAt, _):
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
            try c.encode(focused.seconds, forKey: .focusedSeconds)
            try c.encode(startedAt, forKey: .startedAt)
        case .paused(let phase, let cycle, let cycles, let remaining, _):
            try c.encode(phase, forKey: .phase)
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
            try c.encode(remaining.seconds, forKey: .remainingSeconds)
        case .resumed(let phase, let cycle, let cycles, let endsAt, _):
            try c.encode(phase, forKey: .phase)
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
            try c.encode(endsAt, forKey: .endsAt)
        case .waiting(let next, let cycle, let cycles, _):
            try c.encode(next, forKey: .next)
            try c.encode(cycle, forKey: .cycle)
            try c.encodeIfPresent(cycles, forKey: .cycles)
        case .runFinished(let reason, let completed, _):
            try c.encode(reason, forKey: .reason)
            try c.encode(completed, forKey: .completedFocusPhases)
        }
    }
}
