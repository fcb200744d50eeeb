import Foundation

/// Decides, for one instant, what the session of every schedule should be, which warnings are
/// due, and when to look again.
///
/// Nothing here remembers anything: the daemon calls it at start-up, after a resume, when the
/// wall clock or the time zone changes, at every edge and after every change, with the
/// current instant and the sessions that exist, and it gives the same answer it would have
/// given by watching all along. The one remembered fact it uses is each schedule's
/// `ScheduleRecord`, which tells a block stopped by hand from one never started.
public struct SchedulePlanner: Sendable {
    /// The machine's zone now, for schedules without their own.
    public var systemZone: TimeZone
    /// Warning lead for schedules without their own.
    public var defaultWarning: Duration
    /// Each profile's default strictness, for schedules without their own setting.
    public var profileStrict: [String: Bool]

    /// How many back-to-back intervals are followed to find where a block ends. Beyond that
    /// the block's end is simply extended again at the next start.
    static let chainLimit = 32
    /// A session this close to its end is left to expire by itself rather than ended by its
    /// schedule a moment early (the wall clock and the boot clock drift apart slightly).
    static let expiryMargin = Duration.seconds(1)
    /// Ends closer than this are the same end (the session's end is counted on another clock).
    static let endTolerance: TimeInterval = 0.5

    /// Creates a planner.
    public init(systemZone: TimeZone, defaultWarning: Duration = .seconds(300), profileStrict: [String: Bool] = [:]) {
        self.systemZone = systemZone
        self.defaultWarning = defaultWarning
        self.profileStrict = profileStrict
    }

    /// The plan for `now`, given the schedules, the sessions they own (by schedule name) and
    /// what was recorded about them.
    public func plan(
        _ schedules: [Schedule], at now: Date, sessions: [String: OwnedSession],
        records: [String: ScheduleRecord]
    ) -> SchedulePlan {
        var decisions: [ScheduleDecision] = []
        var wake: Date?
        for schedule in schedules.sorted(by: { $0.name < $1.name }) {
            let (decision, wakes) = decide(schedule, at: now, session: sessions[schedule.name], record: records[schedule.name])
            decisions.append(decision)
            for instant in wakes where instant > now && wake.map({ instant < $0 }) ?? true { wake = instant }
        }
        let names = Set(schedules.map(\.name))
        for (name, session) in sessions.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            decisions.append(ScheduleDecision(name: name, action: Self.ending(session), record: nil, status: nil))
        }
        return SchedulePlan(now: now, decisions: decisions, wake: wake)
    }

    /// When `schedule` is enabled and one of its intervals contains `now`: the start of that
    /// interval (what a record is keyed by), whether it is strict, and when its block ends.
    public func openInterval(of schedule: Schedule, at now: Date) -> (start: Date, strict: Bool, end: Date)? {
        guard schedule.enabled, let block = Self.block(of: schedule.rule, at: now, in: schedule.zone(system: systemZone)) else {
            return nil
        }
        return (block.latestStart, schedule.strict ?? profileStrict[schedule.profile] ?? false, block.end)
    }

    private func decide(
        _ schedule: Schedule, at now: Date, session: OwnedSession?,
        record: ScheduleRecord?
    ) -> (ScheduleDecision, [Date]) {
        let zone = schedule.zone(system: systemZone)
        let strict = schedule.strict ?? profileStrict[schedule.profile] ?? false
        let lead = schedule.warning ?? defaultWarning
        guard schedule.enabled else {
            let status = ScheduleStatus(
                zone: zone, strict: strict, warning: lead, active: false, stoppedByHand: false,
                blockEnd: nil, next: nil)
            return (ScheduleDecision(name: schedule.name, action: Self.ending(session), record: nil, status: status), [])
        }
        let rule = schedule.rule
        var wakes = [rule.nextEdge(after: now, in: zone)].compactMap { $0 }
        let block = Self.block(of: rule, at: now, in: zone)
        var action = ScheduleDecision.Action.leave
        var newRecord: ScheduleRecord?
        var stoppedByHand = false
        var deferred = false
        if let block {
            if strict, let record, record.strictDeferred, record.isAbout(block.latestStart) {
                // It became strict during this interval without being asked to start at once:
                // a block that was already running stays as lenient as it was, none is started.
                deferred = true
                newRecord = record
                if let session {
                    action = Self.running(ScheduledBlock(profile: schedule.profile, end: block.end, strict: false), over: session, at: now)
                }
            } else if session == nil, !strict, let record, record.isAbout(block.latestStart) {
                // Its block was put in force for this very interval and is gone: stopped by hand.
                stoppedByHand = true
                newRecord = ScheduleRecord(intervalStart: block.latestStart, stoppedByHand: true)
            } else {
                newRecord = ScheduleRecord(intervalStart: block.latestStart)
                let wanted = ScheduledBlock(profile: schedule.profile, end: block.end, strict: strict, target: schedule.target)
                action = Self.running(wanted, over: session, at: now)
            }
        } else {
            action = Self.ending(session)
        }

        var warnings: [ScheduleWarning] = []
        if lead > .zero, block?.complete ?? true {
            var edges: [(ScheduleWarning.Edge, Date)] = []
            if let block, !stoppedByHand, !deferred || session != nil { edges.append((.end, block.end)) }
            if let start = rule.nextStart(after: block?.end ?? now, in: zone) { edges.append((.start, start)) }
            for (edge, instant) in edges {
                let from = instant - lead.seconds
                if from <= now, now < instant {
                    warnings.append(ScheduleWarning(schedule: schedule.name, profile: schedule.profile, edge: edge, at: instant))
                } else {
                    wakes.append(from)
                }
            }
        }
        let next = rule.nextIntervals(after: block?.end ?? now, count: 1, in: zone).first
        let status = ScheduleStatus(
            zone: zone, strict: strict, warning: lead, active: block != nil, stoppedByHand: stoppedByHand,
            blockEnd: block?.end, next: next, strictDeferred: deferred)
        return (ScheduleDecision(name: schedule.name, action: action, record: newRecord, status: status, warnings: warnings), wakes)
    }

    /// What to do with an existing session when the schedule wants `wanted` in force.
    private static func running(_ wanted: ScheduledBlock, over session: OwnedSession?, at now: Date) -> ScheduleDecision.Action {
        guard let session, session.profile == wanted.profile else { return .run(wanted) }
        // A new target is put in force at once (in place: nothing is lifted in between).
        guard session.target == wanted.target else { return .run(wanted) }
        let sessionEnd = now + session.remaining.seconds
        if session.strict, sessionEnd >= wanted.end - endTolerance {
            // A strict block is never shortened or softened, whatever happened to the clock.
            return .leave
        }
        if session.strict == wanted.strict, abs(sessionEnd.timeIntervalSince(wanted.end)) < endTolerance { return .leave }
        return .run(wanted)
    }

    /// What to do with a session its schedule no longer wants.
    private static func ending(_ session: OwnedSession?) -> ScheduleDecision.Action {
        guard let session, !session.strict, session.remaining > expiryMargin else { return .leave }
        return .end
    }

    /// The block a rule has in force at `now`: the latest start among the intervals containing
    /// `now` (what a manual stop is keyed by), and the end of the run of intervals that follow
    /// each other without a gap, so back-to-back intervals make one block that is never lifted
    /// in between. `complete` is false when the run goes on beyond `chainLimit` intervals.
    static func block(of rule: ScheduleRule, at now: Date, in zone: TimeZone) -> (latestStart: Date, end: Date, complete: Bool)? {
        guard let active = rule.activeInterval(at: now, in: zone) else { return nil }
        let latestStart: Date
        switch rule {
        case .weekly:
            latestStart = rule.intervals(containing: now, in: zone).map(\.start).max() ?? active.start
        case .calendar(_, let duration), .cron(_, let duration):
            // Every interval has the same length, so the one ending last started last.
            latestStart = active.end - duration.seconds
        }
        var end = active.end
        var cursor = now
        for _ in 0..<chainLimit {
            guard let start = rule.nextStart(after: cursor, in: zone), start <= end else {
                return (latestStart, end, true)
            }
            end = max(end, rule.interval(startingAt: start, in: zone).end)
            cursor = start
        }
        return (latestStart, end, false)
    }
}
