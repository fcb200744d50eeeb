import Foundation
import LockCore
import LockProtocol
import LockStore
import Logging

/// Turns schedules into sessions.
///
/// It keeps no picture of what "should be running": every evaluation (at start-up, at each
/// edge and warning instant, when the wall clock is set or the machine resumes, when the time
/// zone or the profiles change, after each change to the schedules) asks the planner what the
/// sessions should be now, makes them so through `BlockManager.reconcileOwned`, sends the
/// warnings that became due, and arms one timer for the next instant anything can change.
public actor Scheduler {
    private var store: ScheduleStore
    private let manager: BlockManager
    private let state: StateStore
    private let events: EventBus
    private let logger: Logger
    private let clock: @Sendable () -> ClockReading
    private let systemZone: @Sendable () -> TimeZone
    private var defaultWarning: Duration
    private let gate = SerialGate()
    private var timer: (any WallClockTimer)?
    private var records: [String: ScheduleRecord] = [:]
    private var problems: [String: String] = [:]
    private var sentWarnings: Set<String> = []
    private var zoneName: String?
    /// Each profile's default strictness, refreshed when profiles change rather than asked for
    /// at every edge (listing profiles expands all of them).
    private var profileStrict: [String: Bool] = [:]

    /// Where the records are kept in the state database.
    static let recordsKey = "schedules.records"

    /// Creates a scheduler over loaded schedules; call `start()` before serving requests.
    public init(store: ScheduleStore, manager: BlockManager, state: StateStore, events: EventBus, logger: Logger,
                clock: @escaping @Sendable () -> ClockReading, systemZone: @escaping @Sendable () -> TimeZone,
                defaultWarning: Duration) {
        self.store = store
        self.manager = manager
        self.state = state
        self.events = events
        self.logger = logger
        self.clock = clock
        self.systemZone = systemZone
        self.defaultWarning = defaultWarning
    }

    /// Sets the timer that wakes the scheduler at the next edge.
    public func setTimer(_ timer: any WallClockTimer) { self.timer = timer }

    /// Reads back what was recorded before a restart and makes the sessions match the
    /// schedules: a machine booting in the middle of an interval is blocked from here on.
    public func start() async {
        do { records = try state.value([String: ScheduleRecord].self, forKey: Scheduler.recordsKey) ?? [:] } catch {
            logger.error("cannot read the schedule records; blocks stopped by hand may start again", metadata: ["error": "\(error)"])
        }
        await refreshProfiles()
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

    // MARK: - Reload

    /// Reads the schedule files (and the default warning lead) again; a bad file keeps its last
    /// good version. Returns the problems. Runs inside the block manager's reload, so it only
    /// swaps what is loaded: the evaluation follows on the `profiles.changed` event.
    public func reloadFiles(configurationPath: String) async -> [String] {
        if let configuration = try? DaemonConfiguration.load(configurationPath) { defaultWarning = configuration.scheduleWarning }
        await refreshProfiles()
        let found = store.reload(profiles: Set(profileStrict.keys))
        for problem in found { logger.warning("schedule problem; the last good version stays in use", metadata: ["problem": "\(problem)"]) }
        return found.map(\.description)
    }

    // MARK: - API

    /// Every schedule, where it stands now, and the files that could not be loaded.
    /// The schedules that block `profile`, described for a refusal, or nil.
    public func users(of profile: String) -> String? {
        let names = store.schedules.values.filter { $0.profile == profile }.map(\.name).sorted()
        return names.isEmpty ? nil : "schedule\(names.count == 1 ? "" : "s") " + names.joined(separator: ", ")
    }

    public func list() async -> ScheduleList {
        let (plan, ids) = await currentPlan()
        return ScheduleList(schedules: store.sorted.map { info($0, plan, ids) }, problems: store.problems.map(\.description))
    }

    /// One schedule.
    public func schedule(_ name: String) async throws(APIError) -> ScheduleInfo {
        guard let schedule = store.schedules[name] else { throw unknownSchedule(name) }
        let (plan, ids) = await currentPlan()
        return info(schedule, plan, ids)
    }

    /// Creates a schedule, writes its file and puts its block in force if it is due now.
    public func create(_ request: CreateScheduleRequest) async throws(APIError) -> ScheduleInfo {
        try await gated { () async throws(APIError) -> ScheduleInfo in
            let schedule: Schedule
            do {
                schedule = try Schedule(name: request.name, profile: request.profile, days: request.days, from: request.from,
                                        to: request.to, on: request.on, cron: request.cron,
                                        duration: try request.seconds.map { s throws(FieldError) in try Self.duration(s, field: "seconds") },
                                        timeZoneName: request.tz, strict: request.strict,
                                        warning: try request.warnSeconds.map { s throws(FieldError) in try Self.duration(s, field: "warnSeconds") })
            } catch {
                throw APIError(.invalidArgument, "\(error)")
            }
            _ = try await manager.profile(schedule.profile)
            do throws(ScheduleStore.Failure) { try store.create(schedule) } catch { throw apiError(error) }
            logger.info("schedule created", metadata: ["schedule": "\(schedule.name)", "when": "\(schedule.summary)"])
            await evaluateNow("schedule \(schedule.name) created")
            return try await self.schedule(schedule.name)
        }
    }

    /// Enables or disables a schedule. Disabling ends its block, which is refused while that
    /// block is strict.
    public func update(_ name: String, _ request: UpdateScheduleRequest) async throws(APIError) -> ScheduleInfo {
        try await gated { () async throws(APIError) -> ScheduleInfo in
            guard store.schedules[name] != nil else { throw unknownSchedule(name) }
            if let enabled = request.enabled {
                if !enabled { try await refuseIfStrict(name, "disabled") }
                do throws(ScheduleStore.Failure) { _ = try store.setEnabled(name, enabled) } catch { throw apiError(error) }
                logger.info(enabled ? "schedule enabled" : "schedule disabled", metadata: ["schedule": "\(name)"])
                await evaluateNow("schedule \(name) \(enabled ? "enabled" : "disabled")")
            }
            return try await self.schedule(name)
        }
    }

    /// Removes a schedule and its file, ending its block (refused while that block is strict).
    public func remove(_ name: String) async throws(APIError) {
        try await gated { () async throws(APIError) in
            guard store.schedules[name] != nil else { throw unknownSchedule(name) }
            try await refuseIfStrict(name, "removed")
            do throws(ScheduleStore.Failure) { try store.delete(name) } catch { throw apiError(error) }
            logger.info("schedule removed", metadata: ["schedule": "\(name)"])
            await evaluateNow("schedule \(name) removed")
        }
    }

    /// The next `count` intervals of a schedule starting strictly after `after` (default: now),
    /// in the zone it is evaluated in now.
    public func next(_ name: String, count: Int, after: Date?) throws(APIError) -> [ScheduleInterval] {
        guard let schedule = store.schedules[name] else { throw unknownSchedule(name) }
        guard (1...10_000).contains(count) else { throw APIError(.invalidArgument, "count: \(count) is not between 1 and 10000") }
        let zone = schedule.zone(system: systemZone())
        return schedule.rule.nextIntervals(after: after ?? clock().wall, count: count, in: zone).map(ScheduleInterval.init)
    }

    /// Lines for `lockctl status`: `mornings starts in 4 min`, blocks stopped by hand.
    public func notices() async -> [String] {
        let (plan, _) = await currentPlan()
        return plan.notices(now: plan.now) + store.sorted.compactMap { schedule in
            problems[schedule.name].map { "\(schedule.name): \($0)" }
        }
    }

    // MARK: - Evaluation

    private func evaluateNow(_ reason: String) async {
        let (plan, _) = await currentPlan()
        var kept: [String: ScheduleRecord] = [:]
        for decision in plan.decisions {
            let name = decision.name
            var succeeded = true
            switch decision.action {
            case .leave:
                break
            case .run(let block):
                let remaining = block.end.timeIntervalSince(clock().wall)
                guard remaining > 0 else { continue }
                do {
                    try await manager.reconcileOwned(.schedule(name), OwnedSession(profile: block.profile, remaining: .seconds(remaining),
                                                                                  strict: block.strict))
                    problems[name] = nil
                } catch {
                    succeeded = false
                    problems[name] = error.message
                    logger.error("schedule cannot block", metadata: ["schedule": "\(name)", "error": "\(error.message)"])
                }
            case .end:
                do { try await manager.reconcileOwned(.schedule(name), nil) } catch {
                    logger.error("cannot end a schedule's block", metadata: ["schedule": "\(name)", "error": "\(error.message)"])
                }
            }
            if decision.status?.stoppedByHand == true, records[name]?.stoppedByHand != true {
                logger.info("schedule's block was stopped by hand; it blocks again at its next interval", metadata: ["schedule": "\(name)"])
            }
            if let record = succeeded ? decision.record : records[name] { kept[name] = record }
        }
        if kept != records {
            do {
                try state.setValue(kept, forKey: Scheduler.recordsKey)
                records = kept
            } catch {
                logger.error("cannot save the schedule records", metadata: ["error": "\(error)"])
            }
        }
        await publishWarnings(plan)
        timer?.arm(atWall: plan.wake)
        logger.debug("schedules evaluated", metadata: ["reason": "\(reason)", "wake": "\(plan.wake.map { "\($0)" } ?? "never")"])
    }

    private func publishWarnings(_ plan: SchedulePlan) async {
        let due = plan.warnings
        for warning in due where !sentWarnings.contains(warning.key) {
            let seconds = Int(warning.at.timeIntervalSince(plan.now).rounded(.up))
            logger.info("schedule warning", metadata: ["schedule": "\(warning.schedule)", "edge": "\(warning.edge.rawValue)", "in": "\(seconds)s"])
            await events.publish(Event(type: .scheduleWarning, at: plan.now, message: warning.message(now: plan.now),
                                       profile: warning.profile,
                                       details: ["schedule": warning.schedule, "edge": warning.edge.rawValue,
                                                 "at": Self.timestamp(warning.at), "inSeconds": "\(seconds)"]))
        }
        // Only warnings still due are remembered, so the set stays small.
        sentWarnings = Set(due.map(\.key))
    }

    /// The plan for now, and the ids of the sessions the schedules own.
    private func currentPlan() async -> (SchedulePlan, [String: String]) {
        let reading = clock()
        let zone = systemZone()
        if zone.identifier != zoneName {
            if let zoneName { logger.notice("system time zone changed", metadata: ["from": "\(zoneName)", "to": "\(zone.identifier)"]) }
            zoneName = zone.identifier
        }
        var owned: [String: OwnedSession] = [:]
        var ids: [String: String] = [:]
        for session in await manager.activeSessions {
            guard case .schedule(let name) = session.origin else { continue }
            owned[name] = OwnedSession(profile: session.profile, remaining: session.remaining(at: reading), strict: session.strict)
            ids[name] = session.id
        }
        let planner = SchedulePlanner(systemZone: zone, defaultWarning: defaultWarning, profileStrict: profileStrict)
        return (planner.plan(store.sorted, at: reading.wall, sessions: owned, records: records), ids)
    }

    // MARK: - Helpers

    private func refreshProfiles() async {
        let profiles = await manager.listProfiles().profiles
        profileStrict = Dictionary(profiles.map { ($0.name, $0.strict) }, uniquingKeysWith: { first, _ in first })
    }

    private func info(_ schedule: Schedule, _ plan: SchedulePlan, _ ids: [String: String]) -> ScheduleInfo {
        let status = plan.decision(schedule.name)?.status
            ?? ScheduleStatus(zone: schedule.zone(system: systemZone()), strict: schedule.strict ?? false,
                              warning: schedule.warning ?? defaultWarning, active: false, stoppedByHand: false, blockEnd: nil, next: nil)
        return ScheduleInfo(schedule, status: status, session: ids[schedule.name], problem: problems[schedule.name])
    }

    private func refuseIfStrict(_ name: String, _ verb: String) async throws(APIError) {
        let now = clock()
        guard let session = await manager.activeSessions.first(where: { $0.origin == .schedule(name) && $0.strict }) else { return }
        let left = session.remaining(at: now)
        throw APIError(.refused, "\(name) is blocking now in strict mode until \(clockTime(now.wall + left.seconds)) (\(DurationParser.format(left)) left); it can be \(verb) once that block ends")
    }

    private func gated<T>(_ body: () async throws(APIError) -> T) async throws(APIError) -> T {
        do { return try await gate.run(body) } catch let error as APIError { throw error } catch {
            throw APIError(.internalError, "\(error)")
        }
    }

    private static func duration(_ seconds: Double, field: String) throws(FieldError) -> Duration {
        guard seconds.isFinite, abs(seconds) < 1e12 else {
            throw FieldError(field: field, value: "\(seconds)", reason: "\(seconds) is not a number of seconds")
        }
        return .seconds(seconds)
    }

    private func apiError(_ failure: ScheduleStore.Failure) -> APIError {
        switch failure {
        case .notFound(let name): unknownSchedule(name)
        case .exists(let name): APIError(.conflict, "schedule \(name) already exists (see `lockctl schedules show \(name)`)")
        case .io(let message): APIError(.internalError, message)
        }
    }

    private func unknownSchedule(_ name: String) -> APIError {
        APIError(.notFound, "no schedule named \"\(name)\" (see `lockctl schedules list`)")
    }

    private func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = systemZone()
        formatter.dateFormat = abs(date.timeIntervalSince(clock().wall)) < 43_200 ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
