import Foundation
import LockCore
import LockStore
import Logging

/// Turns schedules into sessions.
///
/// It keeps no picture of what "should be running". As a `SessionOwner` it answers, whenever
/// the session service reconciles (at start-up, at each edge and warning instant, when the wall
/// clock is set or the machine resumes, when the time zone or the profiles change, after each
/// change to the schedules, and whenever anything else changes the sessions), what the planner
/// says the sessions should be now: every schedule that changes at one instant goes into the
/// same batch. Once the batch has gone through it keeps the records (saved in the sessions'
/// transaction), sends the warnings that became due, and arms one timer for the next instant
/// anything can change.
public actor Scheduler: SessionOwner {
    private var store: ScheduleStore
    private let sessions: SessionService
    private let profiles: any ProfileCatalog
    private let state: StateStore
    private let events: EventBus
    private let logger: Logger
    private let clock: @Sendable () -> ClockReading
    private let systemZone: @Sendable () -> TimeZone
    private var defaultWarning: Duration
    private let gate = SerialGate()
    private let timer: any WallClockTimer
    private var records: [String: ScheduleRecord] = [:]
    /// The records as last saved; a batch saves `records` when they differ.
    private var savedRecords: [String: ScheduleRecord] = [:]
    /// The plan handed out in `claims`, settled in `settle`.
    private var inFlight: SchedulePlan?
    private var problems: [String: String] = [:]
    private var sentWarnings: Set<String> = []
    private var zoneName: String?
    /// Each profile's default strictness, refreshed when profiles change rather than asked for
    /// at every edge.
    private var profileStrict: [String: Bool] = [:]

    /// Where the records are kept in the state database.
    static let recordsKey = "schedules.records"
    /// How soon a schedule whose block could not be put in place is tried again.
    static let retryDelay: TimeInterval = 5

    /// Creates a scheduler over the schedules in `store` (read by `start()`); call `start()`
    /// before serving requests.
    public init(
        store: ScheduleStore, sessions: SessionService, profiles: any ProfileCatalog, state: StateStore, events: EventBus,
        timer: any WallClockTimer, logger: Logger,
        clock: @escaping @Sendable () -> ClockReading, systemZone: @escaping @Sendable () -> TimeZone,
        defaultWarning: Duration
    ) {
        self.store = store
        self.sessions = sessions
        self.profiles = profiles
        self.timer = timer
        self.state = state
        self.events = events
        self.logger = logger
        self.clock = clock
        self.systemZone = systemZone
        self.defaultWarning = defaultWarning
    }

    /// Reads the schedule files and what was recorded before a restart, and makes the sessions
    /// match the schedules: a machine booting in the middle of an interval is blocked from here on.
    public func start() async {
        do {
            records = try state.value([String: ScheduleRecord].self, forKey: Scheduler.recordsKey) ?? [:]
            savedRecords = records
        } catch {
            logger.error("cannot read the schedule records; blocks stopped by hand may start again", metadata: ["error": "\(error)"])
        }
        await refreshProfiles()
        for problem in store.reload(profiles: Set(profileStrict.keys), targets: await sessions.targetPolicy) {
            logger.warning("schedule problem; the file is ignored", metadata: ["problem": "\(problem)"])
        }
        logger.info("schedules loaded", metadata: ["schedules": "\(store.schedules.count)"])
        await evaluate("start-up")
    }

    /// Profiles were created, changed, deleted or reloaded: a schedule's profile may have come,
    /// gone or changed its default strictness.
    public func profilesChanged() async {
        await refreshProfiles()
        await evaluate("profiles changed")
    }

    /// Makes the sessions match the schedules now, and re-arms the timer.
    public func evaluate(_ reason: String) async {
        await gate.run { await evaluateNow(reason) }
    }

    /// The default warning lead now in force.
    public var warningLead: Duration { defaultWarning }

    // MARK: - Reload

    /// Reads the schedule files again with a new default warning lead; a bad file keeps its
    /// last good version. Returns the problems. The coordinator calls this during a reload and
    /// `profilesChanged()` after it.
    public func reloadFiles(defaultWarning: Duration) async -> [FileProblem] {
        self.defaultWarning = defaultWarning
        await refreshProfiles()
        let found = store.reload(profiles: Set(profileStrict.keys), targets: await sessions.targetPolicy)
        for problem in found { logger.warning("schedule problem; the last good version stays in use", metadata: ["problem": "\(problem)"]) }
        return found
    }

    // MARK: - Queries and changes

    /// The schedules that block `profile`, described for a refusal, or nil.
    public func users(of profile: String) -> String? {
        let names = store.schedules.values.filter { $0.profile == profile }.map(\.name).sorted()
        return names.isEmpty ? nil : "schedule\(names.count == 1 ? "" : "s") " + names.joined(separator: ", ")
    }

    /// Every schedule and where it stands now.
    public func list() async -> [ScheduleView] {
        let (plan, ids) = await currentPlan()
        return store.sorted.map { view($0, plan, ids) }
    }

    /// Schedule files that could not be loaded.
    public var fileProblems: [FileProblem] { store.problems }

    /// One schedule.
    public func schedule(_ name: String) async throws(SchedulingError) -> ScheduleView {
        guard let schedule = store.schedules[name] else { throw .notFound(name) }
        let (plan, ids) = await currentPlan()
        return view(schedule, plan, ids)
    }

    /// Creates a schedule, writes its file and puts its block in force if it is due now. A
    /// strict schedule whose window is open now starts its block at once only with `startNow`;
    /// otherwise its first block is its next interval, so nobody is locked in without warning.
    public func create(_ schedule: Schedule, startNow: Bool = false) async throws(SchedulingError) -> ScheduleView {
        try await gate.run { () async throws(SchedulingError) -> ScheduleView in
            guard await profiles.exists(schedule.profile) else { throw .unknownProfile(schedule.profile) }
            if let problem = await sessions.checkTarget(schedule.target) { throw .invalidTarget(problem) }
            do throws(ScheduleStore.Failure) { try store.create(schedule) } catch { throw SchedulingError(error) }
            logger.info("schedule created", metadata: ["schedule": "\(schedule.name)", "when": "\(schedule.summary)"])
            await settleStrictStart(schedule, startNow: startNow)
            await evaluateNow("schedule \(schedule.name) created")
            return try await self.schedule(schedule.name)
        }
    }

    /// Enables or disables a schedule. Disabling ends its block, which is refused while that
    /// block is strict; enabling a strict schedule during its window starts a block at once only
    /// with `startNow`.
    public func setEnabled(_ name: String, _ enabled: Bool?, startNow: Bool = false) async throws(SchedulingError) -> ScheduleView {
        try await update(name, ScheduleEdit(enabled: enabled), startNow: startNow)
    }

    /// Changes a schedule and rewrites its file. While its block is strict and running, nothing
    /// may weaken it: it cannot be disabled or moved to another profile, and the running block
    /// keeps its end and strictness whatever the new rule says (the planner never shortens or
    /// softens a strict block). A change that would put a strict block in force now does so only
    /// with `startNow`.
    public func update(_ name: String, _ edit: ScheduleEdit, startNow: Bool = false) async throws(SchedulingError) -> ScheduleView {
        try await gate.run { () async throws(SchedulingError) -> ScheduleView in
            guard let old = store.schedules[name] else { throw .notFound(name) }
            guard !edit.isEmpty || startNow else { return try await self.schedule(name) }
            let new: Schedule
            if edit.isEmpty {
                new = old
            } else {
                do throws(FieldError) { new = try edit.applied(to: old) } catch { throw .invalid(error) }
            }
            if new.profile != old.profile {
                guard await profiles.exists(new.profile) else { throw .unknownProfile(new.profile) }
                try await refuseIfStrict(name, "moved to another profile")
            }
            if !new.enabled, old.enabled { try await refuseIfStrict(name, "disabled") }
            if new != old {
                do throws(ScheduleStore.Failure) { try store.replace(new) } catch { throw SchedulingError(error) }
                logger.info("schedule changed", metadata: ["schedule": "\(name)", "when": "\(new.summary)", "enabled": "\(new.enabled)"])
            }
            await settleStrictStart(new, startNow: startNow)
            await evaluateNow("schedule \(name) changed")
            return try await self.schedule(name)
        }
    }

    /// Removes a schedule and its file, ending its block (refused while that block is strict).
    public func remove(_ name: String) async throws(SchedulingError) {
        try await gate.run { () async throws(SchedulingError) in
            guard store.schedules[name] != nil else { throw .notFound(name) }
            try await refuseIfStrict(name, "removed")
            do throws(ScheduleStore.Failure) { try store.delete(name) } catch { throw SchedulingError(error) }
            logger.info("schedule removed", metadata: ["schedule": "\(name)"])
            await evaluateNow("schedule \(name) removed")
        }
    }

    /// The next `count` intervals of a schedule starting strictly after `after` (default: now),
    /// in the zone it is evaluated in now.
    public func next(_ name: String, count: Int, after: Date?) throws(SchedulingError) -> [DateInterval] {
        guard let schedule = store.schedules[name] else { throw .notFound(name) }
        let zone = schedule.zone(system: systemZone())
        return schedule.rule.nextIntervals(after: after ?? clock().wall, count: count, in: zone)
    }

    /// Lines for `lockctl status`: `mornings starts in 4m`, blocks stopped by hand.
    public func notices() async -> [String] {
        let (plan, _) = await currentPlan()
        return plan.notices(now: plan.now)
            + store.sorted.compactMap { schedule in
                problems[schedule.name].map { "\(schedule.name): \($0)" }
            }
    }

    // MARK: - Evaluation

    private func evaluateNow(_ reason: String) async {
        await sessions.reconcile(asking: self)
        logger.debug("schedules evaluated", metadata: ["reason": "\(reason)"])
    }

    // MARK: - Owning sessions

    public nonisolated func owns(_ origin: SessionOrigin) -> Bool {
        if case .schedule = origin { return true }
        return false
    }

    public func claims(at now: ClockReading, owned: [Session], asked: Bool) async -> OwnerClaims {
        let plan = plan(at: now, owned: owned)
        inFlight = plan
        var claimed: [SessionOrigin: OwnedSession?] = [:]
        for decision in plan.decisions {
            switch decision.action {
            case .leave:
                break
            case .run(let block):
                let remaining = block.end.timeIntervalSince(now.wall)
                guard remaining > 0 else { continue }
                claimed[.schedule(decision.name)] = OwnedSession(
                    profile: block.profile, remaining: .seconds(remaining), strict: block.strict, target: block.target)
            case .end:
                claimed.updateValue(nil, forKey: .schedule(decision.name))
            }
        }
        let (records, saved) = (records, savedRecords)
        return OwnerClaims(sessions: claimed) { refused in
            let kept = Self.kept(plan, records, refused: refused)
            guard kept != saved, let write = try? StateWrite.value(kept, forKey: Scheduler.recordsKey) else { return [] }
            return [write]
        }
    }

    public func settle(_ outcome: OwnerOutcome) async {
        guard let plan = inFlight else { return }
        inFlight = nil
        var anyFailed = false
        var refused = Set(outcome.refused.keys)
        for decision in plan.decisions {
            let name = decision.name
            let origin = SessionOrigin.schedule(name)
            switch decision.action {
            case .leave:
                break
            case .run:
                if let error = outcome.problem(origin) {
                    refused.insert(origin)
                    anyFailed = true
                    problems[name] = "\(error)"
                    logger.error("schedule cannot block; trying again", metadata: ["schedule": "\(name)", "error": "\(error)"])
                } else {
                    problems[name] = nil
                }
            case .end:
                if let error = outcome.problem(origin) {
                    anyFailed = true
                    logger.error("cannot end a schedule's block; trying again", metadata: ["schedule": "\(name)", "error": "\(error)"])
                }
            }
            if decision.status?.stoppedByHand == true, records[name]?.stoppedByHand != true {
                logger.info("schedule's block was stopped by hand; it blocks again at its next interval", metadata: ["schedule": "\(name)"])
            }
        }
        records = Self.kept(plan, records, refused: refused)
        if outcome.saved { savedRecords = records }
        publishWarnings(plan)
        // A block that could not be put in place (or lifted) is tried again soon rather than
        // at the next edge, which may be hours away.
        let retry = anyFailed ? plan.now.addingTimeInterval(Self.retryDelay) : nil
        timer.arm(atWall: [plan.wake, retry].compactMap { $0 }.min())
    }

    /// The records once `plan` is carried out, but for the schedules whose blocks were refused.
    private static func kept(
        _ plan: SchedulePlan, _ records: [String: ScheduleRecord], refused: Set<SessionOrigin>
    ) -> [String: ScheduleRecord] {
        var kept: [String: ScheduleRecord] = [:]
        for decision in plan.decisions {
            var succeeded = true
            if case .run(let block) = decision.action {
                guard block.end > plan.now else { continue }
                succeeded = !refused.contains(.schedule(decision.name))
            }
            if let record = succeeded ? decision.record : records[decision.name] { kept[decision.name] = record }
        }
        return kept
    }

    private func publishWarnings(_ plan: SchedulePlan) {
        let due = plan.warnings
        for warning in due where !sentWarnings.contains(warning.key) {
            let seconds = Int(warning.at.timeIntervalSince(plan.now).rounded(.up))
            logger.info(
                "schedule warning", metadata: ["schedule": "\(warning.schedule)", "edge": "\(warning.edge.rawValue)", "in": "\(seconds)s"])
            events.publish(.scheduleWarning(warning, now: plan.now))
        }
        // Only warnings still due are remembered, so the set stays small.
        sentWarnings = Set(due.map(\.key))
    }

    /// The plan for now, and the ids of the sessions the schedules own.
    private func currentPlan() async -> (SchedulePlan, [String: String]) {
        let reading = clock()
        let owned = await sessions.active.filter { owns($0.origin) }
        var ids: [String: String] = [:]
        for session in owned { if case .schedule(let name) = session.origin { ids[name] = session.id } }
        return (plan(at: reading, owned: owned), ids)
    }

    /// The plan at `reading`, given the sessions the schedules own.
    private func plan(at reading: ClockReading, owned: [Session]) -> SchedulePlan {
        let zone = systemZone()
        if zone.identifier != zoneName {
            if let zoneName { logger.notice("system time zone changed", metadata: ["from": "\(zoneName)", "to": "\(zone.identifier)"]) }
            zoneName = zone.identifier
        }
        var sessions: [String: OwnedSession] = [:]
        for session in owned {
            guard case .schedule(let name) = session.origin else { continue }
            sessions[name] = OwnedSession(
                profile: session.profile, remaining: session.remaining(at: reading), strict: session.strict, target: session.target)
        }
        let planner = SchedulePlanner(systemZone: zone, defaultWarning: defaultWarning, profileStrict: profileStrict)
        return planner.plan(store.sorted, at: reading.wall, sessions: sessions, records: records)
    }

    // MARK: - Helpers

    private func refreshProfiles() async {
        profileStrict = await profiles.strictDefaults()
    }

    private func view(_ schedule: Schedule, _ plan: SchedulePlan, _ ids: [String: String]) -> ScheduleView {
        let status =
            plan.decision(schedule.name)?.status
            ?? ScheduleStatus(
                zone: schedule.zone(system: systemZone()), strict: schedule.strict ?? false,
                warning: schedule.warning ?? defaultWarning, active: false, stoppedByHand: false, blockEnd: nil, next: nil)
        return ScheduleView(schedule: schedule, status: status, session: ids[schedule.name], problem: problems[schedule.name])
    }

    /// Records whether `schedule`'s open interval gets a strict block: not when that would newly
    /// put one in force now (no strict block of it is running) without `startNow`; with
    /// `startNow`, an earlier deferral is lifted.
    private func settleStrictStart(_ schedule: Schedule, startNow: Bool) async {
        let planner = SchedulePlanner(systemZone: systemZone(), defaultWarning: defaultWarning, profileStrict: profileStrict)
        guard let open = planner.openInterval(of: schedule, at: clock().wall), open.strict else { return }
        let current = records[schedule.name].flatMap { $0.isAbout(open.start) ? $0 : nil }
        let record: ScheduleRecord
        if startNow {
            guard current?.strictDeferred == true else { return }
            record = ScheduleRecord(intervalStart: open.start)
        } else {
            if current?.strictDeferred == true { return }
            if await sessions.active.contains(where: { $0.origin == .schedule(schedule.name) && $0.strict }) { return }
            record = ScheduleRecord(intervalStart: open.start, strictDeferred: true)
        }
        // Saved with the evaluation that follows, in the sessions' transaction.
        records[schedule.name] = record
        logger.info(
            startNow ? "strict schedule blocks from now" : "strict schedule blocks from its next interval",
            metadata: ["schedule": "\(schedule.name)"])
    }

    private func refuseIfStrict(_ name: String, _ verb: String) async throws(SchedulingError) {
        guard let session = await sessions.active.first(where: { $0.origin == .schedule(name) && $0.strict }) else { return }
        throw .strictBlock(schedule: name, session: session, verb: verb)
    }
}

extension SchedulingError {
    init(_ failure: ScheduleStore.Failure) {
        switch failure {
        case .notFound(let name): self = .notFound(name)
        case .exists(let name): self = .exists(name)
        case .io(let message): self = .io(message)
        }
    }
}
