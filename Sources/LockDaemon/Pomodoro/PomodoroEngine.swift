import Foundation
import LockCore
import LockStore
import Logging

/// The Pomodoro timer: one `PomodoroMachine` linked to a profile. A boot-clock timer is armed
/// for the next phase end (the engine never polls). As a `SessionOwner` it owns the single
/// session of origin `pomodoro`: present during focus phases (and strict paused ones), absent
/// otherwise.
///
/// Every change is proposed, not made: validated, then handed to the session service's
/// reconciliation, which puts the session in place and saves the run (with the focus phases it
/// completed) in the sessions' transaction; only then does the engine take the new machine
/// into use (`settle`) and publish its events. A change a user asked for that cannot go through
/// is simply never taken into use; one that time brought about happens anyway, its problem is
/// reported in the status and retried at each checkpoint.
public actor PomodoroEngine: SessionOwner {
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
    /// A change waiting for its reconciliation (asked for by this engine).
    private var pending: Proposal?
    /// The change handed out in `claims`, taken into use (or not) in `settle`.
    private var inFlight: Proposal?

    /// A machine and run the engine would move to, with what they bring.
    private struct Proposal: Sendable {
        var run: PomodoroRun?
        var machine: PomodoroMachine?
        var events: [PomodoroEvent] = []
        var completed: [FocusRecord] = []
        /// Someone asked for it: it is not taken into use if its session cannot be put in place.
        var isRequest = false
        /// The run is saved with it.
        var save = true
    }

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
            var dropped = false
            do { saved = try store.value(PomodoroRun.self, forKey: Self.storeKey) } catch {
                logger.error("the saved Pomodoro cannot be read; it is dropped", metadata: ["error": "\(error)"])
                saved = nil
                dropped = true
            }
            guard let saved else {
                // A session without a run (the run was dropped) must not outlive it.
                pending = Proposal(run: nil, machine: nil, save: dropped)
                await sessions.reconcile(asking: self)
                return
            }
            pending = Self.proposal(saved, PomodoroMachine.restore(saved.snapshot, at: now), isRequest: false)
            await sessions.reconcile(asking: self)
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
            let started = PomodoroRun(
                id: makeID(), profile: profile.name, startedAt: now.wall, snapshot: outcome.machine.snapshot,
                target: request.target.isThisMachine ? nil : request.target)
            try await propose(Self.proposal(started, outcome, isRequest: true))
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
            guard let run else { throw .notRunning }
            try await propose(Self.proposal(run, outcome, isRequest: true))
            logger.info("pomodoro \(operation.rawValue)", metadata: ["profile": "\(run.profile)"])
            return await view(at: now)
        }
    }

    /// The timer as it stands now; nil when no run was ever started.
    public func view() async -> PomodoroView? {
        await view(at: clock())
    }

    /// Completed focus phases, newest first, with totals.
    public func history(limit: Int) throws(PomodoroError) -> FocusHistory {
        do { return try store.focusHistory(limit: limit) } catch { throw .storage(StorageFailure(error)) }
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
            // Asked without a proposal: the claims move the machine on to the batch's instant.
            await sessions.reconcile(asking: self)
        }
    }

    /// Hands a change someone asked for to the reconciliation; throws why it did not go through.
    private func propose(_ proposal: Proposal) async throws(PomodoroError) {
        pending = proposal
        let outcome = await sessions.reconcile(asking: self)
        if let error = outcome.problem(.pomodoro) { throw .session(error) }
    }

    /// The proposal of moving `run` to `outcome`'s machine.
    private static func proposal(_ run: PomodoroRun, _ outcome: PomodoroOutcome, isRequest: Bool) -> Proposal {
        var run = run
        run.snapshot = outcome.machine.snapshot
        let completed = outcome.events.compactMap { event -> FocusRecord? in
            guard case .focusCompleted(let cycle, let cycles, let focused, let startedAt, let at) = event else { return nil }
            return FocusRecord(
                run: run.id, profile: run.profile, cycle: cycle, cycles: cycles, startedAt: startedAt, endedAt: at, focused: focused)
        }
        return Proposal(run: run, machine: outcome.machine, events: outcome.events, completed: completed, isRequest: isRequest)
    }

    // MARK: - Owning the session

    public nonisolated func owns(_ origin: SessionOrigin) -> Bool { origin == .pomodoro }

    public func claims(at now: ClockReading, owned: [Session], asked: Bool) async -> OwnerClaims {
        let proposal: Proposal
        if let pending {
            // Its own reconciliation follows; until then the machine stays as it is.
            guard asked else { return .none }
            proposal = pending
        } else if let machine, let run, !machine.isFinished {
            var moved = Self.proposal(run, machine.advance(to: now), isRequest: false)
            moved.save = asked || !moved.events.isEmpty
            proposal = moved
        } else if run != nil || asked {
            // A finished run owns no session; asked without a run, no session may outlive it.
            proposal = Proposal(run: run, machine: machine, save: false)
        } else {
            return .none
        }
        inFlight = proposal
        let writes: [StateWrite]
        do { writes = proposal.save ? [try .value(proposal.run, forKey: Self.storeKey), .focus(proposal.completed)] : [] } catch {
            logger.error("cannot encode the Pomodoro", metadata: ["error": "\(error)"])
            writes = []
        }
        let isRequest = proposal.isRequest
        return OwnerClaims(
            sessions: [.pomodoro: Self.desiredSession(proposal.machine, proposal.run, now: now)], isRequest: isRequest,
            records: { refused in isRequest && !refused.isEmpty ? [] : writes })
    }

    public func settle(_ outcome: OwnerOutcome) async {
        guard let proposal = inFlight else { return }
        inFlight = nil
        if outcome.asked { pending = nil }
        let failure = outcome.problem(.pomodoro)
        // A request that did not go through is never taken into use: nothing to undo.
        if proposal.isRequest, failure != nil { return }
        if !outcome.saved, proposal.save { logger.error("cannot save the Pomodoro; will retry", metadata: [:]) }
        run = proposal.run
        machine = proposal.machine
        if let failure {
            problem = "cannot block \(proposal.run?.profile ?? "the profile"): \(failure)"
            logger.error("cannot put the Pomodoro session in place", metadata: ["error": "\(failure)"])
        } else {
            problem = nil
        }
        timer.arm(at: machine?.nextDeadline)
        if let run { for event in proposal.events { publish(event, run: run) } }
    }

    /// The session `machine` and `run` call for at `now`.
    private static func desiredSession(_ machine: PomodoroMachine?, _ run: PomodoroRun?, now: ClockReading) -> OwnedSession? {
        guard let machine, let run else { return nil }
        switch machine.state {
        case .running(.focus, let deadline) where deadline > now.boot:
            return OwnedSession(
                profile: run.profile, remaining: deadline - now.boot, strict: machine.config.strict, target: run.target ?? .thisMachine)
        case .paused(.focus, _) where machine.config.strict:
            return OwnedSession(profile: run.profile, remaining: Self.pausedHorizon, strict: true, target: run.target ?? .thisMachine)
        default:
            return nil
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
