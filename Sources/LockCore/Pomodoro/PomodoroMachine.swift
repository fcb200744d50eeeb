import Foundation

/// One pomodoro run: focus and break phases, their timing, pauses, and the events they produce.
///
/// A pure value. It never reads a clock: every operation takes the current `ClockReading` and
/// returns a new machine plus the events that happened (or throws a `PomodoroRefusal` and
/// changes nothing). Every operation first applies the phase ends that are already due at `now`,
/// so an operation that arrives late (a busy daemon, a suspend) acts on the phase that is really
/// current, and reports the caught-up events before its own.
///
/// Phase time is counted on the boot clock, which the user cannot move and which keeps running
/// during suspend; wall-clock times only appear in events and status, as estimates.
///
/// Only time the daemon watched is credited. A phase end noticed more than `missedEndGrace`
/// late (the daemon was not running, or the machine was asleep) ends that phase as
/// `interrupted`: it is not a completed pomodoro, the phases that would have followed are not
/// played out, and the run waits for `next` as in manual mode, so a weekend off does not turn
/// into a hundred pomodoros. Time between the last checkpoint and a restore (the daemon was
/// not running, across a reboot or not) is not counted as focus either, even when the phase
/// goes on. A suspend that ends before the phase does counts as part of it, like every block.
public struct PomodoroMachine: Sendable, Equatable {
    /// The configuration the run was started with (already validated).
    public let config: PomodoroConfig
    /// Where the run stands.
    public private(set) var state: PomodoroRunState
    /// The number of the current (or last) focus phase: the k of "cycle k of n".
    public private(set) var cycle: Int
    /// How many focus phases ran their full time.
    public private(set) var completedFocusPhases: Int
    /// Wall time at which the running or paused phase started; `nil` while waiting or finished.
    public private(set) var phaseStartedAt: Date?
    /// The checkpoint taken by the last operation; what a snapshot carries across a reboot.
    public private(set) var lastCheckpoint: PomodoroCheckpoint
    /// Time of the current phase that passed while the daemon was not watching; subtracted
    /// from what the phase is credited with when it ends.
    public private(set) var unwatched: Duration

    /// How late a phase end may be noticed and still count as witnessed. The daemon's timer
    /// fires within milliseconds, so anything later means it was not running or the machine
    /// slept; a minute leaves room for a loaded machine and a quick restart.
    public static let missedEndGrace: Duration = .seconds(60)

    init(
        config: PomodoroConfig, state: PomodoroRunState, cycle: Int, completedFocusPhases: Int,
        phaseStartedAt: Date?, lastCheckpoint: PomodoroCheckpoint, unwatched: Duration = .zero
    ) {
        self.config = config
        self.state = state
        self.cycle = cycle
        self.completedFocusPhases = completedFocusPhases
        self.phaseStartedAt = phaseStartedAt
        self.lastCheckpoint = lastCheckpoint
        self.unwatched = unwatched
    }

    // MARK: - Starting and restoring

    /// Validates `config` and starts the first focus phase at `now`.
    public static func start(_ config: PomodoroConfig, at now: ClockReading) throws(PomodoroConfigError) -> PomodoroOutcome {
        try config.validate()
        // "Waiting for focus 1" is exactly the state before the first phase, so starting is
        // the same step as `next` and shares its code.
        var machine = PomodoroMachine(
            config: config, state: .waiting(next: .focus), cycle: 0, completedFocusPhases: 0, phaseStartedAt: nil,
            lastCheckpoint: PomodoroCheckpoint(wall: now.wall, boot: now.boot, bootID: now.bootID, remaining: .zero))
        var events: [PomodoroEvent] = []
        machine.begin(.focus, at: now.boot, now: now, events: &events)
        return machine.settled(at: now, events)
    }

    /// Rebuilds a run from a snapshot after a daemon restart, then catches up like `advance`.
    ///
    /// Within the same boot the saved boot-clock deadline is exact. After a reboot it is
    /// meaningless, so a running phase gets the time it had at the checkpoint minus the wall
    /// time that passed since, clamped to [0, what it had]: a wall clock set back while the
    /// machine was off cannot add time. Either way the time since the checkpoint was not
    /// watched, so it is not credited; a phase that ended more than `missedEndGrace` ago is
    /// `interrupted` and the run waits for `next`. Paused, waiting and finished runs come back
    /// as they were.
    public static func restore(_ snapshot: PomodoroSnapshot, at now: ClockReading) -> PomodoroOutcome {
        var machine = PomodoroMachine(
            config: snapshot.config, state: snapshot.state, cycle: snapshot.cycle,
            completedFocusPhases: snapshot.completedFocusPhases, phaseStartedAt: snapshot.phaseStartedAt,
            lastCheckpoint: snapshot.checkpoint, unwatched: snapshot.unwatched)
        guard case .running(let phase, _) = snapshot.state else { return machine.advance(to: now) }
        // Where the checkpoint lies on this boot's clock: the start of the unwatched span.
        let checkpointBoot: BootTime
        if snapshot.checkpoint.bootID == now.bootID {
            checkpointBoot = min(snapshot.checkpoint.boot, now.boot)
        } else {
            let had = max(snapshot.checkpoint.remaining, .zero)
            let passed = max(PomodoroDurations.between(snapshot.checkpoint.wall, now.wall), .zero)
            // A negative `had - passed` puts the deadline in the past, which is exactly when the
            // phase ended while the machine was off.
            machine.state = .running(phase, deadline: now.boot + (had - passed))
            checkpointBoot = now.boot - passed
        }
        let (caught, events) = machine.caughtUp(to: now, unwatchedSince: checkpointBoot)
        return caught.settled(at: now, events)
    }

    /// The run as a Codable value, with the checkpoint of the last operation. Call
    /// `checkpoint(at:)` first to save up-to-date remaining time.
    public var snapshot: PomodoroSnapshot {
        PomodoroSnapshot(
            config: config, state: state, cycle: cycle, completedFocusPhases: completedFocusPhases,
            phaseStartedAt: phaseStartedAt, checkpoint: lastCheckpoint, unwatched: unwatched)
    }

    // MARK: - Queries

    /// The running or paused phase; `nil` while waiting or finished.
    public var phase: PomodoroPhase? { state.phase }

    /// Whether the current phase is paused.
    public var isPaused: Bool {
        if case .paused = state { return true }
        return false
    }

    /// Whether the run is waiting for `next` (manual mode only).
    public var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// Whether the run is over.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// When the daemon must call `advance` next: the end of the running phase. `nil` while
    /// paused, waiting or finished, because then nothing happens without a user action.
    public var nextDeadline: BootTime? {
        if case .running(_, let deadline) = state { return deadline }
        return nil
    }

    /// Whether the linked profile must be blocked at `now`: during a running focus phase, and
    /// during a paused one in strict mode. Phase ends already due at `now` are taken into account.
    public func isBlocking(at now: ClockReading) -> Bool {
        advance(to: now).machine.blocksInCurrentState
    }

    /// What `lockctl pomodoro status` shows, as of `now`.
    public func status(at now: ClockReading) -> PomodoroStatus {
        PomodoroStatus(machine: advance(to: now).machine, now: now)
    }

    // MARK: - Operations

    /// Applies every phase end due at `now`, each once: several within `missedEndGrace`, and
    /// at most one missed end, after which the run waits. Never refused; a finished run stays
    /// finished.
    public func advance(to now: ClockReading) -> PomodoroOutcome {
        let (machine, events) = caughtUp(to: now)
        return machine.settled(at: now, events)
    }

    /// Same as `advance(to:)`; named for the daemon's periodic save, since every operation
    /// records a fresh checkpoint.
    public func checkpoint(at now: ClockReading) -> PomodoroOutcome {
        advance(to: now)
    }

    /// Freezes the remaining time of the current phase. Lifts the block unless strict.
    public func pause(at now: ClockReading) throws(PomodoroRefusal) -> PomodoroOutcome {
        var (m, events) = caughtUp(to: now)
        switch m.state {
        case .running(let phase, let deadline):
            // Positive: after catching up, a running phase's deadline is after `now`.
            let remaining = deadline - now.boot
            m.state = .paused(phase, remaining: remaining)
            events.append(.paused(phase: phase, cycle: m.cycle, cycles: m.config.cycles, remaining: remaining, at: now.wall))
        case .paused(let phase, _):
            throw .alreadyPaused(phase)
        case .waiting(let next):
            throw .waitingForNext(next)
        case .finished:
            throw .finished
        }
        return m.settled(at: now, events)
    }

    /// Continues the paused phase with the time it had left.
    public func resume(at now: ClockReading) throws(PomodoroRefusal) -> PomodoroOutcome {
        var (m, events) = caughtUp(to: now)
        switch m.state {
        case .paused(let phase, let remaining):
            let deadline = now.boot + remaining
            m.state = .running(phase, deadline: deadline)
            events.append(
                .resumed(
                    phase: phase, cycle: m.cycle, cycles: m.config.cycles,
                    endsAt: Self.wallTime(of: deadline, at: now), at: now.wall))
        case .running(let phase, _):
            throw .notPaused(phase)
        case .waiting(let next):
            throw .waitingForNext(next)
        case .finished:
            throw .finished
        }
        return m.settled(at: now, events)
    }

    /// Ends the current (running or paused) phase now and starts the next one, even in manual
    /// mode, since skipping is already an explicit request to move on. Refused for a focus
    /// phase in strict mode. Skipping the last focus phase finishes the run.
    public func skip(at now: ClockReading) throws(PomodoroRefusal) -> PomodoroOutcome {
        var (m, events) = caughtUp(to: now)
        let phase: PomodoroPhase
        let remaining: Duration
        switch m.state {
        case .running(let p, let deadline):
            (phase, remaining) = (p, deadline - now.boot)
        case .paused(let p, let r):
            (phase, remaining) = (p, r)
        case .waiting(let next):
            throw .waitingForNext(next)
        case .finished:
            throw .finished
        }
        if m.config.strict && phase.isFocus { throw .strictSkip }
        m.end(phase, remaining: remaining, reason: .skipped, at: now.boot, now: now, events: &events)
        m.moveOn(after: phase, at: now.boot, wait: false, now: now, events: &events)
        return m.settled(at: now, events)
    }

    /// Ends the whole run. Refused during a (running or paused) focus phase in strict mode.
    public func stop(at now: ClockReading) throws(PomodoroRefusal) -> PomodoroOutcome {
        var (m, events) = caughtUp(to: now)
        switch m.state {
        case .running(let phase, let deadline):
            if m.config.strict && phase.isFocus { throw .strictStop }
            m.end(phase, remaining: deadline - now.boot, reason: .stopped, at: now.boot, now: now, events: &events)
        case .paused(let phase, let remaining):
            if m.config.strict && phase.isFocus { throw .strictStop }
            m.end(phase, remaining: remaining, reason: .stopped, at: now.boot, now: now, events: &events)
        case .waiting:
            break
        case .finished:
            throw .finished
        }
        m.finish(.stopped, at: now.wall, events: &events)
        return m.settled(at: now, events)
    }

    /// Manual mode: starts the phase that is waiting.
    public func next(at now: ClockReading) throws(PomodoroRefusal) -> PomodoroOutcome {
        var (m, events) = caughtUp(to: now)
        switch m.state {
        case .waiting(let next):
            m.begin(next, at: now.boot, now: now, events: &events)
        case .running(let phase, _):
            throw .phaseInProgress(phase, paused: false)
        case .paused(let phase, _):
            throw .phaseInProgress(phase, paused: true)
        case .finished:
            throw .finished
        }
        return m.settled(at: now, events)
    }

    // MARK: - Internals

    /// Whether the current state blocks, without looking at the clock.
    var blocksInCurrentState: Bool {
        switch state {
        case .running(.focus, _): true
        case .paused(.focus, _): config.strict
        default: false
        }
    }

    /// The wall time corresponding to boot-clock instant `t`, estimated from the reading `now`.
    static func wallTime(of t: BootTime, at now: ClockReading) -> Date {
        now.wall.addingTimeInterval((t - now.boot).seconds)
    }

    /// Applies the phase ends due at `now`. `unwatchedSince` is where on the boot clock the
    /// daemon stopped watching, when restoring; time after it is not credited.
    private func caughtUp(to now: ClockReading, unwatchedSince: BootTime? = nil) -> (PomodoroMachine, [PomodoroEvent]) {
        var machine = self
        var events: [PomodoroEvent] = []
        var gapStart = unwatchedSince
        // A phase ends when the clock reaches its deadline, so `<=`: the daemon's timer fires at
        // the deadline and must see the phase over.
        while case .running(let phase, let deadline) = machine.state, deadline <= now.boot {
            let missed = now.boot - deadline > Self.missedEndGrace
            // While the daemon runs it checkpoints periodically, so the last checkpoint is
            // the last moment it is known to have been awake before a suspend.
            if missed, gapStart == nil, machine.lastCheckpoint.bootID == now.bootID {
                gapStart = min(machine.lastCheckpoint.boot, deadline)
            }
            if let start = gapStart {
                machine.unwatched += max(deadline - start, .zero)
                gapStart = deadline
            }
            if missed {
                machine.end(phase, remaining: .zero, reason: .interrupted, at: deadline, now: now, events: &events)
                machine.moveOn(after: phase, at: deadline, wait: true, now: now, events: &events)
                break
            }
            machine.end(phase, remaining: .zero, reason: .completed, at: deadline, now: now, events: &events)
            // The next phase starts at the old deadline, not at `now`, so that late processing
            // does not stretch the schedule.
            machine.moveOn(after: phase, at: deadline, wait: config.manual, now: now, events: &events)
        }
        if let start = gapStart, case .running = machine.state {
            machine.unwatched += max(now.boot - start, .zero)
        }
        return (machine, events)
    }

    private func settled(at now: ClockReading, _ events: [PomodoroEvent]) -> PomodoroOutcome {
        var machine = self
        let remaining: Duration
        switch state {
        case .running(_, let deadline): remaining = max(deadline - now.boot, .zero)
        case .paused(_, let r): remaining = r
        case .waiting, .finished: remaining = .zero
        }
        machine.lastCheckpoint = PomodoroCheckpoint(wall: now.wall, boot: now.boot, bootID: now.bootID, remaining: remaining)
        return PomodoroOutcome(machine: machine, events: events)
    }

    private mutating func begin(_ phase: PomodoroPhase, at start: BootTime, now: ClockReading, events: inout [PomodoroEvent]) {
        if phase.isFocus { cycle += 1 }
        unwatched = .zero
        let duration = config.duration(of: phase)
        let deadline = start + duration
        state = .running(phase, deadline: deadline)
        let startWall = Self.wallTime(of: start, at: now)
        phaseStartedAt = startWall
        events.append(
            .phaseStarted(
                phase: phase, cycle: cycle, cycles: config.cycles, duration: duration,
                at: startWall, endsAt: Self.wallTime(of: deadline, at: now)))
    }

    private mutating func end(
        _ phase: PomodoroPhase, remaining: Duration, reason: PomodoroEndReason, at boundary: BootTime,
        now: ClockReading, events: inout [PomodoroEvent]
    ) {
        // Planned minus remaining is the time actually run: a pause freezes `remaining`, so
        // paused time never counts as focus; unwatched time does not count either.
        let elapsed = max(config.duration(of: phase) - max(remaining, .zero) - unwatched, .zero)
        let endWall = Self.wallTime(of: boundary, at: now)
        events.append(.phaseEnded(phase: phase, cycle: cycle, cycles: config.cycles, reason: reason, elapsed: elapsed, at: endWall))
        if phase.isFocus && reason == .completed {
            completedFocusPhases += 1
            events.append(
                .focusCompleted(
                    cycle: cycle, cycles: config.cycles, focused: elapsed,
                    startedAt: phaseStartedAt ?? endWall.addingTimeInterval(-elapsed.seconds), at: endWall))
        }
        phaseStartedAt = nil
        unwatched = .zero
    }

    private mutating func moveOn(
        after phase: PomodoroPhase, at boundary: BootTime, wait: Bool,
        now: ClockReading, events: inout [PomodoroEvent]
    ) {
        let boundaryWall = Self.wallTime(of: boundary, at: now)
        guard let following = config.phase(after: phase, cycle: cycle) else {
            finish(.completed, at: boundaryWall, events: &events)
            return
        }
        if wait {
            state = .waiting(next: following)
            events.append(
                .waiting(
                    next: following, cycle: following.isFocus ? cycle + 1 : cycle, cycles: config.cycles, at: boundaryWall))
        } else {
            begin(following, at: boundary, now: now, events: &events)
        }
    }

    private mutating func finish(_ reason: PomodoroFinishReason, at wall: Date, events: inout [PomodoroEvent]) {
        state = .finished(reason)
        phaseStartedAt = nil
        events.append(.runFinished(reason: reason, completedFocusPhases: completedFocusPhases, at: wall))
    }
}
