import Foundation
import LockCore
import Testing

/// The scheduler's decisions at chosen instants: the clock is a parameter, nothing sleeps.
@Suite("Schedule planner")
struct SchedulePlannerTests {
    let berlin = zone("Europe/Berlin")
    let planner = SchedulePlanner(systemZone: zone("Europe/Berlin"), defaultWarning: .seconds(300))

    func weekly(
        _ name: String, _ days: String, _ from: String, _ to: String, tz: String? = nil, strict: Bool? = nil,
        warning: Duration? = nil, enabled: Bool = true
    ) throws -> Schedule {
        try Schedule(
            name: name, profile: "deep-work", days: days, from: from, to: to, timeZoneName: tz, strict: strict,
            warning: warning, enabled: enabled)
    }

    func session(_ remaining: TimeInterval, strict: Bool = false, profile: String = "deep-work") -> OwnedSession {
        OwnedSession(profile: profile, remaining: .seconds(remaining), strict: strict)
    }

    @Test func weekdayMorningsFromWarningToEnd() throws {
        let mornings = try weekly("mornings", "mon-fri", "09:00", "12:30")
        // Monday 2026-11-23, Berlin (UTC+1).
        let before = planner.plan([mornings], at: utc("2026-11-23T07:56:00Z"), sessions: [:], records: [:])
        #expect(before.decision("mornings")?.action == .leave)
        #expect(before.decision("mornings")?.warnings.map(\.edge) == [.start])
        #expect(before.notices(now: utc("2026-11-23T07:56:00Z")) == ["mornings starts in 4m"])
        #expect(before.wake == utc("2026-11-23T08:00:00Z"))

        let start = utc("2026-11-23T08:00:00Z")
        let atStart = planner.plan([mornings], at: start, sessions: [:], records: [:])
        let end = utc("2026-11-23T11:30:00Z")
        #expect(atStart.decision("mornings")?.action == .run(ScheduledBlock(profile: "deep-work", end: end, strict: false)))
        #expect(atStart.decision("mornings")?.record == ScheduleRecord(intervalStart: start))
        #expect(atStart.wake == end - 300)

        // Running as wanted: nothing to do; five minutes before the end, the end warning.
        let running = planner.plan(
            [mornings], at: start + 3600, sessions: ["mornings": session(2.5 * 3600)],
            records: ["mornings": ScheduleRecord(intervalStart: start)])
        #expect(running.decision("mornings")?.action == .leave)
        let closing = planner.plan(
            [mornings], at: end - 120, sessions: ["mornings": session(120)],
            records: ["mornings": ScheduleRecord(intervalStart: start)])
        #expect(
            closing.decision("mornings")?.warnings == [ScheduleWarning(schedule: "mornings", profile: "deep-work", edge: .end, at: end)])
        #expect(closing.notices(now: end - 120) == ["mornings ends in 2m"])
        #expect(closing.wake == end)

        // At the end the session expires by itself; the schedule does not end it early.
        let atEnd = planner.plan(
            [mornings], at: end, sessions: ["mornings": session(0.2)], records: ["mornings": ScheduleRecord(intervalStart: start)])
        #expect(atEnd.decision("mornings")?.action == .leave)
        #expect(atEnd.decision("mornings")?.record == nil)
        #expect(atEnd.decision("mornings")?.status?.next?.start == utc("2026-11-24T08:00:00Z"))
        #expect(atEnd.wake == utc("2026-11-24T07:55:00Z"))
    }

    @Test func overnightWindowBootedInTheMiddle() throws {
        let nights = try weekly("nights", "all", "22:00", "07:00")
        // The machine boots at 03:00 on Tuesday: blocked until 07:00, as part of Monday's window.
        let plan = planner.plan([nights], at: utc("2026-11-24T02:00:00Z"), sessions: [:], records: [:])
        let decision = try #require(plan.decision("nights"))
        #expect(decision.action == .run(ScheduledBlock(profile: "deep-work", end: utc("2026-11-24T06:00:00Z"), strict: false)))
        #expect(decision.record?.intervalStart == utc("2026-11-23T21:00:00Z"))
        #expect(decision.status?.active == true)
        #expect(decision.status?.next?.start == utc("2026-11-24T21:00:00Z"))
    }

    @Test func springForward() throws {
        // Berlin 2027-03-28: 02:00 CET → 03:00 CEST.
        let early = try weekly("early", "sun", "01:00", "05:00")
        let plan = planner.plan([early], at: utc("2027-03-28T00:30:00Z"), sessions: [:], records: [:])
        // 01:00 CET to 05:00 CEST is three real hours.
        #expect(
            plan.decision("early")?.action == .run(ScheduledBlock(profile: "deep-work", end: utc("2027-03-28T03:00:00Z"), strict: false)))
        // A window starting inside the gap does not run that day.
        let gap = try weekly("gap", "all", "02:30", "03:30")
        let gapPlan = planner.plan([gap], at: utc("2027-03-28T01:15:00Z"), sessions: [:], records: [:])
        #expect(gapPlan.decision("gap")?.action == .leave)
        #expect(gapPlan.decision("gap")?.status?.active == false)
        #expect(gapPlan.decision("gap")?.status?.next?.start == utc("2027-03-29T00:30:00Z"))
    }

    @Test func fallBack() throws {
        // Berlin 2026-10-25: 03:00 CEST → 02:00 CET; 02:30–04:00 starts at the first 02:30.
        let window = try weekly("late", "sun", "02:30", "04:00")
        let start = utc("2026-10-25T00:30:00Z")
        let end = utc("2026-10-25T03:00:00Z")
        for instant in [start, utc("2026-10-25T01:45:00Z")] {  // the second 02:45 is still inside
            let plan = planner.plan([window], at: instant, sessions: [:], records: [:])
            #expect(plan.decision("late")?.action == .run(ScheduledBlock(profile: "deep-work", end: end, strict: false)))
            #expect(plan.decision("late")?.record?.intervalStart == start)
        }
        // A calendar rule at a repeated time starts once: not again in the second pass.
        let calendar = try Schedule(name: "twice", profile: "news", on: "*-*-* 02:30", duration: .seconds(600))
        let second = planner.plan([calendar], at: utc("2026-10-25T01:35:00Z"), sessions: [:], records: [:])
        #expect(second.decision("twice")?.action == .leave)
        #expect(second.decision("twice")?.status?.next?.start == utc("2026-10-26T01:30:00Z"))
    }

    @Test func zoneChange() throws {
        let office = try weekly("office", "mon-fri", "09:00", "17:00")
        let instant = utc("2026-11-23T12:00:00Z")  // Monday: 13:00 in Berlin, 21:00 in Tokyo
        let session = ["office": session(4 * 3600)]
        let records = ["office": ScheduleRecord(intervalStart: utc("2026-11-23T08:00:00Z"))]
        #expect(planner.plan([office], at: instant, sessions: session, records: records).decision("office")?.action == .leave)
        var tokyo = planner
        tokyo.systemZone = zone("Asia/Tokyo")
        let moved = tokyo.plan([office], at: instant, sessions: session, records: records)
        #expect(moved.decision("office")?.action == .end)
        #expect(moved.decision("office")?.status?.next?.start == utc("2026-11-24T00:00:00Z"))
        // A schedule with its own zone does not move with the system's.
        let pinned = try weekly("pinned", "mon-fri", "09:00", "17:00", tz: "Europe/Berlin")
        #expect(
            tokyo.plan([pinned], at: instant, sessions: ["pinned": self.session(4 * 3600)], records: [:])
                .decision("pinned")?.action == .leave)
        // And a zone named in the expression wins over both.
        let named = try Schedule(name: "named", profile: "news", on: "Mon..Fri 09:00 America/New_York", duration: .seconds(3600))
        #expect(named.zone(system: berlin).identifier == "America/New_York")
        #expect(
            tokyo.plan([named], at: utc("2026-11-23T14:30:00Z"), sessions: [:], records: [:]).decision("named")?.action
                == .run(ScheduledBlock(profile: "news", end: utc("2026-11-23T15:00:00Z"), strict: false)))
    }

    @Test func resumeAfterALongSuspend() throws {
        let mornings = try weekly("mornings", "mon-fri", "09:00", "12:30")
        // Suspended on Monday 10:00 during the block; the session ran out meanwhile. Waking
        // on Wednesday at 10:15 is inside a new interval: blocked until 12:30, not "stopped".
        let oldRecord = ["mornings": ScheduleRecord(intervalStart: utc("2026-11-23T08:00:00Z"))]
        let wake = planner.plan([mornings], at: utc("2026-11-25T09:15:00Z"), sessions: [:], records: oldRecord)
        #expect(
            wake.decision("mornings")?.action == .run(ScheduledBlock(profile: "deep-work", end: utc("2026-11-25T11:30:00Z"), strict: false))
        )
        #expect(wake.decision("mornings")?.status?.stoppedByHand == false)
        // Waking after the window: nothing to do, and the missed intervals are not replayed.
        let late = planner.plan([mornings], at: utc("2026-11-25T13:00:00Z"), sessions: [:], records: oldRecord)
        #expect(late.decision("mornings")?.action == .leave)
        #expect(late.wake == utc("2026-11-26T07:55:00Z"))
    }

    @Test func stoppedByHandStaysStoppedUntilTheNextInterval() throws {
        let mornings = try weekly("mornings", "mon-fri", "09:00", "12:30")
        let start = utc("2026-11-23T08:00:00Z")
        let record = ["mornings": ScheduleRecord(intervalStart: start)]
        // The session is gone while its interval runs: a user stopped it.
        let stopped = planner.plan([mornings], at: start + 1800, sessions: [:], records: record)
        let decision = try #require(stopped.decision("mornings"))
        #expect(decision.action == .leave)
        #expect(decision.record == ScheduleRecord(intervalStart: start, stoppedByHand: true))
        #expect(decision.status?.stoppedByHand == true)
        #expect(stopped.notices(now: start + 1800) == ["mornings stopped by hand until Tue 09:00"])
        // Asked again (another edge, a restart reading the record back): still stopped.
        let again = planner.plan([mornings], at: start + 7200, sessions: [:], records: ["mornings": decision.record!])
        #expect(again.decision("mornings")?.action == .leave)
        // The next interval blocks again.
        let tomorrow = planner.plan([mornings], at: start + 86_400, sessions: [:], records: ["mornings": decision.record!])
        #expect(
            tomorrow.decision("mornings")?.action
                == .run(ScheduledBlock(profile: "deep-work", end: start + 86_400 + 3.5 * 3600, strict: false)))
        #expect(tomorrow.decision("mornings")?.record == ScheduleRecord(intervalStart: start + 86_400))
        // A strict schedule's block cannot have been stopped: it is started again.
        let strict = try weekly("mornings", "mon-fri", "09:00", "12:30", strict: true)
        #expect(
            planner.plan([strict], at: start + 1800, sessions: [:], records: record).decision("mornings")?.action
                == .run(ScheduledBlock(profile: "deep-work", end: start + 3.5 * 3600, strict: true)))
    }

    @Test func strictBlocksAreNeverShortened() throws {
        let exam = try weekly("exam", "mon-fri", "09:00", "12:30", strict: true)
        let start = utc("2026-11-23T08:00:00Z")
        // The wall clock was set forward past the end: the strict block runs out its time.
        let forward = planner.plan([exam], at: start + 5 * 3600, sessions: ["exam": session(3 * 3600, strict: true)], records: [:])
        #expect(forward.decision("exam")?.action == .leave)
        // Set backwards into the interval: the interval's end is earlier than the session's.
        let backward = planner.plan([exam], at: start + 3 * 3600, sessions: ["exam": session(3 * 3600, strict: true)], records: [:])
        #expect(backward.decision("exam")?.action == .leave)
        // A shorter strict session is lengthened to the interval's end.
        let short = planner.plan([exam], at: start + 3600, sessions: ["exam": session(600, strict: true)], records: [:])
        #expect(short.decision("exam")?.action == .run(ScheduledBlock(profile: "deep-work", end: start + 3.5 * 3600, strict: true)))
        // Disabled or removed: a non-strict block ends, a strict one runs out.
        let disabled = try weekly("exam", "mon-fri", "09:00", "12:30", strict: false, enabled: false)
        #expect(planner.plan([disabled], at: start + 3600, sessions: ["exam": session(600)], records: [:]).decision("exam")?.action == .end)
        #expect(
            planner.plan([disabled], at: start + 3600, sessions: ["exam": session(600, strict: true)], records: [:]).decision("exam")?
                .action == .leave)
        #expect(planner.plan([], at: start + 3600, sessions: ["gone": session(600)], records: [:]).decision("gone")?.action == .end)
        #expect(
            planner.plan([], at: start + 3600, sessions: ["gone": session(600, strict: true)], records: [:]).decision("gone")?.action
                == .leave)
        // Strictness comes from the profile when the schedule does not say.
        let inherits = try weekly("inherits", "mon-fri", "09:00", "12:30")
        var strictProfiles = planner
        strictProfiles.profileStrict = ["deep-work": true]
        #expect(
            strictProfiles.plan([inherits], at: start, sessions: [:], records: [:]).decision("inherits")?.action
                == .run(ScheduledBlock(profile: "deep-work", end: start + 3.5 * 3600, strict: true)))
    }

    @Test func backToBackIntervalsMakeOneBlock() throws {
        let hours = try Schedule(name: "hours", profile: "news", on: "*-*-* 09,10:00", duration: .seconds(3600), timeZoneName: "UTC")
        let plan = planner.plan([hours], at: utc("2026-11-23T09:30:00Z"), sessions: [:], records: [:])
        #expect(plan.decision("hours")?.action == .run(ScheduledBlock(profile: "news", end: utc("2026-11-23T11:00:00Z"), strict: false)))
        #expect(plan.decision("hours")?.warnings.isEmpty == true)
        #expect(plan.wake == utc("2026-11-23T10:00:00Z"))
        // Intervals overlapping without end: no end warning, the end moves on at each start.
        let dense = try Schedule(name: "dense", profile: "news", on: "minutely", duration: .seconds(3 * 3600), timeZoneName: "UTC")
        let densePlan = planner.plan([dense], at: utc("2026-11-23T09:30:30Z"), sessions: [:], records: [:])
        #expect(densePlan.decision("dense")?.warnings.isEmpty == true)
        #expect(densePlan.wake == utc("2026-11-23T09:31:00Z"))
        guard case .run(let block)? = densePlan.decision("dense")?.action else {
            Issue.record("dense schedule does not block")
            return
        }
        #expect(block.end > utc("2026-11-23T12:30:00Z"))
    }

    @Test func warningLeads() throws {
        let quiet = try weekly("quiet", "all", "09:00", "10:00", tz: "UTC", warning: .zero)
        let early = try weekly("early", "all", "09:00", "10:00", tz: "UTC", warning: .seconds(1800))
        let instant = utc("2026-11-23T08:45:00Z")
        let plan = planner.plan([quiet, early], at: instant, sessions: [:], records: [:])
        #expect(plan.decision("quiet")?.warnings.isEmpty == true)
        #expect(plan.warnings.map(\.key) == ["early|start|\(Int(utc("2026-11-23T09:00:00Z").timeIntervalSince1970))"])
        #expect(plan.notices(now: instant) == ["early starts in 15m"])
        #expect(plan.notices(now: utc("2026-11-23T08:59:20Z")) == ["early starts in 40s"])
        #expect(plan.wake == utc("2026-11-23T09:00:00Z"))
        // Disabled schedules warn about nothing and wake nobody.
        let off = try weekly("off", "all", "09:00", "10:00", tz: "UTC", enabled: false)
        let offPlan = planner.plan([off], at: instant, sessions: [:], records: [:])
        #expect(offPlan.warnings.isEmpty && offPlan.wake == nil)
    }

    @Test func oneOffInThePastNeverWakes() throws {
        let exam = try Schedule(name: "exam", profile: "news", on: "2026-01-15 08:00", duration: .seconds(3 * 3600), timeZoneName: "UTC")
        let plan = planner.plan([exam], at: utc("2026-11-23T09:00:00Z"), sessions: [:], records: [:])
        #expect(plan.wake == nil)
        #expect(plan.decision("exam")?.status?.next == nil)
    }

    @Test func buildingFromFieldsNamesTheBadField() {
        func field(_ body: () throws -> Schedule) -> String? {
            do {
                _ = try body()
                return nil
            } catch let error as FieldError { return error.field } catch { return "\(error)" }
        }
        #expect(field { try Schedule(name: "x", profile: "p", days: "mon", from: "25:00", to: "10:00") } == "from")
        #expect(field { try Schedule(name: "x", profile: "p", cron: "61 * * * *", duration: .seconds(60)) } == "cron")
        #expect(field { try Schedule(name: "x", profile: "p", on: "daily", duration: .seconds(60), timeZoneName: "Mars/Olympus") } == "tz")
        #expect(field { try Schedule(name: "x", profile: "p", on: "daily", duration: .zero) } == "for")
        #expect(field { try Schedule(name: "x", profile: "p", on: "daily", duration: .seconds(-300)) } == "for")
        #expect(field { try Schedule(name: "x", profile: "p", on: "daily") } == "for")
        #expect(field { try Schedule(name: "x", profile: "p", days: "mon", from: "09:00", to: "09:00:30") } == "to")
        #expect(field { try Schedule(name: "x", profile: "p", days: "mon", from: "09:00") } == "to")
        #expect(field { try Schedule(name: "x", profile: "p", days: "mon", from: "09:00", to: "10:00", on: "daily") } == "on")
        #expect(field { try Schedule(name: "x", profile: "p", days: "mon", from: "09:00", to: "10:00", duration: .seconds(60)) } == "for")
        #expect(field { try Schedule(name: "x", profile: "p") } == "days")
        #expect(field { try Schedule(name: "Bad Name", profile: "p", on: "daily", duration: .seconds(60)) } == "name")
        #expect(
            field { try Schedule(name: "x", profile: "p", on: "daily Europe/Berlin", duration: .seconds(60), timeZoneName: "UTC") } == "tz")
        #expect(
            field { try Schedule(name: "x", profile: "p", on: "daily", duration: .seconds(60), warning: .seconds(2 * 86_400)) } == "warn")
        #expect(field { try Schedule(name: "x", profile: "p", on: "daily", duration: .seconds(60), timeZoneName: "UTC") } == nil)
    }
}
