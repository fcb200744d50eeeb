import Foundation

/// What `lockctl pomodoro status` shows: phase, cycle k of n, time left, paused, what comes next.
public struct PomodoroStatus: Sendable, Equatable, CustomStringConvertible {
    /// What happens after the current phase (or, while waiting, what `next` will start).
    public enum Upcoming: Sendable, Equatable, CustomStringConvertible {
        /// This phase, with its configured length.
        case phase(PomodoroPhase, duration: Duration)
        /// The run finishes (the current phase is the last focus phase).
        case finish

        /// For example "short break 5m", "long break 15m" or "finished".
        public var description: String {
            switch self {
            case .phase(let phase, let duration): "\(phase) \(DurationParser.formatExact(duration))"
            case .finish: "finished"
            }
        }
    }

    /// Where the run stands.
    public let state: PomodoroRunState
    /// The running or paused phase; `nil` while waiting or finished.
    public let phase: PomodoroPhase?
    /// The number of the current (or last) focus phase.
    public let cycle: Int
    /// The configured number of focus phases; `nil` when the run repeats until stopped.
    public let cycles: Int?
    /// Time left in the running or paused phase.
    public let remaining: Duration?
    /// Estimated wall time at which the running phase ends; `nil` unless running.
    public let endsAt: Date?
    /// Whether the linked profile is blocked now.
    public let isBlocking: Bool
    /// Whether the run is in strict mode.
    public let strict: Bool
    /// Whether the run is in manual mode.
    public let manual: Bool
    /// How many focus phases ran their full time.
    public let completedFocusPhases: Int
    /// What comes next; `nil` once the run has finished.
    public let next: Upcoming?

    /// Whether the current phase is paused.
    public var isPaused: Bool {
        if case .paused = state { return true }
        return false
    }

    /// Time left in whole seconds, rounded up so that 0 only shows when nothing is left.
    public var remainingSeconds: Int64? {
        remaining.map(PomodoroDurations.ceilingSeconds)
    }

    /// "cycle 2 of 4", or "cycle 2" for a run that repeats until stopped.
    public var cycleText: String {
        cycles.map { "cycle \(cycle) of \($0)" } ?? "cycle \(cycle)"
    }

    /// One line, for example `focus, cycle 2 of 4, 12m30s left; next: short break 5m`.
    public var description: String {
        switch state {
        case .running(let phase, _), .paused(let phase, _):
            var head = "\(phase)"
            if isPaused { head += isBlocking ? " (paused, still blocking)" : " (paused)" }
            let left = DurationParser.formatExact(.seconds(remainingSeconds ?? 0))
            return "\(head), \(cycleText), \(left) left; next: \(next?.description ?? "finished")"
        case .waiting:
            // Outside manual mode only a missed phase end makes a run wait.
            let why = manual ? "" : "the last phase ended while the computer was off or asleep; "
            return "waiting, \(cycleText); next: \(next?.description ?? "finished") (\(why)start it with next)"
        case .finished(let reason):
            let noun = completedFocusPhases == 1 ? "focus phase" : "focus phases"
            return "finished (\(reason)), \(completedFocusPhases) \(noun) completed"
        }
    }

    /// Describes `machine`, which must already be caught up to `now`.
    init(machine: PomodoroMachine, now: ClockReading) {
        let config = machine.config
        state = machine.state
        phase = machine.state.phase
        cycle = machine.cycle
        cycles = config.cycles
        isBlocking = machine.blocksInCurrentState
        strict = config.strict
        manual = config.manual
        completedFocusPhases = machine.completedFocusPhases
        func upcoming(after phase: PomodoroPhase) -> Upcoming {
            config.phase(after: phase, cycle: machine.cycle).map { .phase($0, duration: config.duration(of: $0)) } ?? .finish
        }
        switch machine.state {
        case .running(let phase, let deadline):
            remaining = max(deadline - now.boot, .zero)
            endsAt = PomodoroMachine.wallTime(of: deadline, at: now)
            next = upcoming(after: phase)
        case .paused(let phase, let left):
            remaining = left
            endsAt = nil
            next = upcoming(after: phase)
        case .waiting(let pending):
            remaining = nil
            endsAt = nil
            next = .phase(pending, duration: config.duration(of: pending))
        case .finished:
            remaining = nil
            endsAt = nil
            next = nil
        }
    }
}
