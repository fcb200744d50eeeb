import Foundation
import LockCore
import LockStore
import Logging

/// The Pomodoro timer: one `PomodoroMachine` linked to a profile. A boot-clock timer is armed
/// for the next phase end (the engine never polls), and the single session of origin
/// `pomodoro` is made to match the machine through `SessionService.reconcileOwned`: present
/// during focus phases (and strict paused ones), absent otherwise.
///
/// Every change follows the daemon's order: validate, persist (the snapshot together with the
/// focus phases it completed), enforce (reconcile the owned session), publish events. A change
/// a user asked for is undone if its session cannot be put in place; one that time brought
/// about cannot be, so its problem is reported in the status and retried at each checkpoint.
public actor PomodoroEngine {
    /// Key of the saved run in the state store.
    static let storeKey = "pomodoro"
    /// How far ahead the session of a paused strict focus phase ends. It has no end while
    /// paused; each checkpoint pushes this horizon out again, so it never runs out.
    static let pausedHorizon = PomodoroConfig.maximumPhase

    private let sessions: SessionService
    private let profiles: any ProfileCatalog
    private let store: StateStore
    private let events: EventBus
    private let timer: any DeadlineTimer
    private let logger: Logger
    private let clock: @Sendable () -> ClockReading
    private let makeID: @Sendable () -> String
    private let gate = SerialGate()
    private var defaults: PomodoroConfig
    private var run: PomodoroRun?
    private var machine: PomodoroMachine?
    private var problem: String?

    /// Creates an engine; call `restore()` before serving requests.
    public init(
        sessions: SessionService, profiles: any ProfileCatalog, store: StateStore, events: EventBus,
        timer: any DeadlineTimer, defaults: PomodoroConfig, logger: Logger,
        clock: @escaping @Sendable () -> ClockReading,
        makeID: @escaping @Sendable () -> String = { SessionService.randomID() }
    ) {
        self.sessions = sessions
        self.profiles = profiles
        self.store = store
        self.events = events
        self.timer = timer
        self.defaults = defaults
        self.logger = logger
        self.clock = clock
        self.makeID = makeID
    }

    /// The settings runs start with when a request leaves them out (`[pomodoro]`).
    public func setDefaults(_ defaults: PomodoroConfig) { self.defaults = defaults }

    // MARK: - Start-up and time

    /// Loads the saved run, catches it up to now (see `PomodoroMachine.restore` for what is
    /// credited after the daemon was not running), and puts its session in place. A run that
    /// cannot be read is dropped, with its session, rather than keeping the daemon from starting.
    public func restore() async {
        await gate.run {
            let now = clock()
            let saved: PomodoroRun?
            do { saved = try store.value(PomodoroRun.self, forKey: Self.storeKey) } catch {
                logger.error("the saved Pomodoro cannot be read; it is dropped", metadata: ["error": "\(error)"])
                try? store.savePomodoro(Optional<PomodoroRun>.none, forKey: Self.storeKey, completed: [])
                saved = nil
            }
            guard let saved else {
                // A session without a run (the run was dropped) must not outlive it.
                await enforce(now: now)
                return
            }
            run = saved
            let outcome = PomodoroMachine.restore(saved.snapshot, at: now)
            machine = outcome.machine
            try? await commit(outcome, now: now)
            timer.arm(at: machine?.nextDeadline)
            if let machine, !machine.isFinished {
                logger.info("pomodoro resumed", metadata: ["profile": "\(saved.profile)", "state": "\(machine.status(at: now))"])
            }
        }
    }

    /// Ends the phases whose time is up; called when the deadline timer fires.
    public func deadlineReached() async {
        await refresh()
    }

    /// Saves the run's remaining time, so a reboot loses at most one interval, keeps a paused
    /// strict focus phase's session open, and retries a session that could not be put in place.
    public func checkpoint() async {
        await refresh()
    }

    // MARK: - Requests

    /// Starts a run. Refused while another one is under way.
    public func start(_ request: PomodoroStart) async throws(PomodoroError) -> PomodoroView? {
        try await gate.run { () async throws(PomodoroError) -> PomodoroView? in
            let now = clock()
            guard let profile = await profiles.expansion(of: request.profile)?.profile else { throw .unknownProfile(request.profile) }
            if let problem = await sessions.checkTarget(request.target) { throw .session(.invalidTarget(problem)) }
            var config = defaults
            if let value = request.focus { config.focus = value }
            if let value = request.shortBreak { config.shortBreak = value }
            if let value = request.longBreak { config.longBreak = value }
            if let value = request.longEvery { config.longEvery = value }
            if let value = request.cycles { config.cycles = value }
            if let value = request.manual { config.manual = value }
            config.strict = request.strict ?? profile.strict
            let outcome: PomodoroOutcome
            do throws(PomodoroConfigError) { outcome = try PomodoroMachine.start(config, at: now) } catch {
                throw .invalid(error)
            }
            if let machine, let run, !machine.advance(to: now).machine.isFinished {
                throw .alreadyRunning(profile: run.profile, status: "\(machine.status(at: now))")
            }
            let previous = (run, machine)
            run = PomodoroRun(
                id: makeID(), profile: profile.name, startedAt: now.wall, snapshot: outcome.machine.snapshot,
                target: request.target.isThisMachine ? nil : request.target)
            machine = outcome.machine
            try await commit(outcome, now: now, undoing: previous)
            logger.info("pomodoro started", metadata: ["profile": "\(profile.name)", "run": "\(run?.id ?? "")"])
            return await view(at: now)
        }
    }

    /// Pauses, resumes, skips, stops or moves on.
    public func perform(_ operation: PomodoroOperation) async throws(PomodoroError) -> PomodoroView? {
        try await gate.run { () async throws(PomodoroError) -> PomodoroView? in
            let now = clock()
            guard let current = machine, run != nil, !current.isFinished else { throw .notRunning }
            let outcome: PomodoroOutcome
            do throws(PomodoroRefusal) {
                switch operation {
                case .pause: outcome = try current.pause(at: now)
                case .resume: outcome = try current.resume(at: now)
                case .skip: outcome = try current.skip(at: now)
                case .stop: outcome = try current.stop(at: now)
                case .next: outcome = try current.next(at: now)
                }
            } catch {
                throw .refused(error)
            }
            machine = outcome.machine
            try await commit(outcome, now: now, undoing: (run, current))
            logger.info("pomodoro \(operation.rawValue)", metadata: ["profile": "\(run?.profile ?? "")"])
            return await view(at: now)
        }
    }

    /// The timer as it stands now; nil when no run was ever started.
    public func view() async -> PomodoroView? {
        await view(at: clock())
    }

    /// Completed focus phases, newest first, with totals.
    public func history(limit: Int) throws(PomodoroError) -> FocusHistory {
        do { return try store.focusHistory(limit: limit) } catch { throw .storage("\(error)") }
    }

    /// "the Pomodoro timer" when a run that is not finished is linked to `profile`.
    public func uses(_ profile: String) -> String? {
        guard let run, run.profile == profile, machine.map({ !$0.isFinished }) ?? false else { return nil }
        return "the Pomodoro timer"
    }

    /// Lines for `lockctl status` while a run is under way.
    public func notices() -> [String] {
        let now = clock()
        guard let machine, let run, !machine.isFinished else { return [] }
        var lines = ["pomodoro \(run.profile): \(machine.status(at: now))"]
        if let problem { lines.append("pomodoro: \(problem)") }
        return lines
    }

    // MARK: - Helpers

    private func refresh() async {
        await gate.run {
            guard let current = machine, !current.isFinished else { return }
            let now = clock()
            let outcome = current.advance(to: now)
            machine = outcome.machine
            try? await commit(outcome, now: now)
        }
    }

    /// Persists the machine with the focus phases it completed, puts its session in place,
    /// re-arms the timer and publishes the events. With `undoing`, a failure to save or to put
    /// the session in place restores that earlier state and is thrown; without, time has moved
    /// on regardless: the block still follows the machine, and saving or enforcing is retried
    /// at the next checkpoint (a session problem is shown in the status meanwhile).
    private func commit(
        _ outcome: PomodoroOutcome, now: ClockReading,
        undoing previous: (PomodoroRun?, PomodoroMachine?)? = nil
    ) async throws(PomodoroError) {
        guard var current = run else { return }
        current.snapshot = outcome.machine.snapshot
        let completed = outcome.events.compactMap { event -> FocusRecord? in
            guard case .focusCompleted(let cycle, let cycles, let focused, let startedAt, let at) = event else { return nil }
            return FocusRecord(
                run: current.id, profile: current.profile, cycle: cycle, cycles: cycles,
                startedAt: startedAt, endedAt: at, focused: focused)
        }
        do { try store.savePomodoro(current, forKey: Self.storeKey, completed: completed) } catch {
            if let previous {
                (run, machine) = previous
                throw .storage("\(error)")
            }
            logger.error("cannot save the Pomodoro; will retry", metadata: ["error": "\(error)"])
        }
        // Enforced before the new state shows: `pomodoro status` never says a focus phase ended
        // while its block is still in place (changes are serialised by the gate; reads are not).
        let failure = await enforce(outcome.machine, current, now: now)
        if let failure, let previous {
            (run, machine) = previous
            try? store.savePomodoro(run, forKey: Self.storeKey, completed: [])
            await enforce(now: now)
            timer.arm(at: machine?.nextDeadline)
            throw .session(failure)
        }
        run = current
        machine = outcome.machine
        timer.arm(at: machine?.nextDeadline)
        for event in outcome.events { publish(event, run: current) }
    }

    /// Makes the Pomodoro session match the machine; returns the failure, if any.
    @discardableResult
    private func enforce(now: ClockReading) async -> SessionError? {
        await enforce(machine, run, now: now)
    }

    /// Makes the Pomodoro session match `machine` and `run`; returns the failure, if any.
    private func enforce(_ machine: PomodoroMachine?, _ run: PomodoroRun?, now: ClockReading) async -> SessionError? {
        var desired: OwnedSession?
        if let machine, let run {
            switch machine.state {
            case .running(.focus, let deadline) where deadline > now.boot:
                desired = OwnedSession(
                    profile: run.profile, remaining: deadline - now.boot, strict: machine.config.strict,
                    target: run.target ?? .thisMachine)
            case .paused(.focus, _) where machine.config.strict:
                desired = OwnedSession(
                    profile: run.profile, remaining: Self.pausedHorizon, strict: true, target: run.target ?? .thisMachine)
            default:
                break
            }
        }
        do {
            try await sessions.reconcileOwned(.pomodoro, desired)
            problem = nil
            return nil
        } catch {
            problem = "cannot block \(desired?.profile ?? "the profile"): \(error)"
            logger.error("cannot put the Pomodoro session in place", metadata: ["error": "\(error)"])
            return error
        }
    }

    private func view(at now: ClockReading) async -> PomodoroView? {
        guard let machine, let run else { return nil }
        let session = await sessions.active.first { $0.origin == .pomodoro }?.id
        return PomodoroView(
            status: machine.status(at: now), profile: run.profile, startedAt: run.startedAt, settings: machine.config,
            session: session, problem: problem)
    }

    private func publish(_ event: PomodoroEvent, run: PomodoroRun) {
        logger.info("\(Self.message(event))", metadata: ["pomodoro": "\(run.id)", "profile": "\(run.profile)"])
        events.publish(.pomodoro(event, run: run.id, profile: run.profile))
    }

    /// A sentence for the event stream.
    static func message(_ event: PomodoroEvent) -> String {
        func cycle(_ k: Int, _ n: Int?) -> String { n.map { "cycle \(k) of \($0)" } ?? "cycle \(k)" }
        switch event {
        case .phaseStarted(let phase, let k, let n, let duration, _, _):
            return "\(phase) started (\(cycle(k, n))), \(DurationParser.format(duration))"
        case .phaseEnded(let phase, let k, let n, let reason, _, _):
            return "\(phase) ended (\(cycle(k, n))): \(reason)"
        case .focusCompleted(let k, let n, let focused, _, _):
            return "pomodoro completed (\(cycle(k, n))): \(DurationParser.format(focused)) of focus"
        case .paused(let phase, let k, let n, let remaining, _):
            return "\(phase) paused (\(cycle(k, n))) with \(DurationParser.format(remaining)) left"
        case .resumed(let phase, let k, let n, _, _):
            return "\(phase) resumed (\(cycle(k, n)))"
        case .waiting(let next, let k, let n, _):
            return "waiting for `lockctl pomodoro next` to start the \(next) (\(cycle(k, n)))"
        case .runFinished(let reason, let completed, _):
            return "Pomodoro finished (\(reason)): \(completed) pomodoro\(completed == 1 ? "" : "s") completed"
        }
    }

}
