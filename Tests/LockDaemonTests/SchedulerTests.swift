import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import Logging
import Synchronization
import TestSupport
import Testing

@testable import LockDaemon

/// The scheduler driving the real session service (fake enforcer, real SQLite, real files), with the
/// clock and the system's zone in the test's hands. Nothing sleeps: time moves when the test
/// says so, and the test calls `evaluate` where the timer would have fired.
@Suite("Scheduler with a manual clock")
struct SchedulerTests {
    let scratch: Scratch
    let clock = ManualClock()  // Friday 2027-01-15 08:00:00 UTC
    let zone = ManualZone("UTC")
    let fake = FakeEnforcer()
    let timer = RecordingWallTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    /// A daemon's worth of services over the scratch directory; calling it again is a restart.
    func start() async throws -> (TestDaemon, TestDaemon) {
        let daemon = try await TestDaemon.start(
            scratch: scratch, store: store, clock: clock, enforcers: [fake], zone: zone,
            scheduleTimer: timer)
        return (daemon, daemon)
    }

    var wall: Date { clock.now().wall }

    func blocked(_ name: String) async -> Bool { await fake.current?.domains.contains(name) == true }

    @Test func aBlockStartsAtItsEdgeAndEndsByItself() async throws {
        let (manager, scheduler) = try await start()
        let created = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "fri", profile: "news", days: "fri", from: "09:00", to: "10:00"))
        #expect(created.active == false)
        #expect(created.next == ScheduleInterval(start: wall + 3600, end: wall + 7200))
        #expect(scratch.read("etc/simplylock/schedules.d/fri.toml")?.contains("days = \"fri\"") == true)
        #expect(timer.last == wall + 3300)  // the warning five minutes before the start
        #expect(await manager.sessions.active.isEmpty)

        clock.advance(3600)
        await scheduler.scheduler.evaluate("edge")
        let session = try #require(await manager.sessions.active.first)
        #expect(session.origin == .schedule("fri"))
        #expect(session.remaining(at: clock.now()) == .seconds(3600))
        #expect(await blocked("news.ycombinator.com"))
        #expect(timer.last == wall + 3300)

        // The end is the session's own deadline on the boot clock.
        clock.advance(3600)
        await manager.sessions.expireDue()
        await scheduler.scheduler.evaluate("edge")
        #expect(await manager.sessions.active.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == .expired)
        #expect(timer.last == wall + 7 * 86_400 - 3600 - 300)
    }

    @Test func startingInsideAnIntervalBlocksForTheRestOfIt() async throws {
        try scratch.write(
            "etc/simplylock/schedules.d/nights.toml",
            """
            name = "nights"
            profile = "social"
            days = "all"
            from = "22:00"
            to = "09:30"
            """)
        let (manager, _) = try await start()
        let session = try #require(await manager.sessions.active.first)
        #expect(session.origin == .schedule("nights"))
        #expect(session.remaining(at: clock.now()) == .seconds(5400))
        #expect(await blocked("facebook.com"))
    }

    @Test func aBlockStoppedByHandStaysStoppedUntilTheNextIntervalEvenAcrossARestart() async throws {
        let (manager, scheduler) = try await start()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "mornings", profile: "news", days: "all", from: "07:00", to: "12:00"))
        #expect(await manager.sessions.active.count == 1)
        _ = try await manager.api.stop("news")
        clock.advance(60)
        await scheduler.scheduler.evaluate("edge")
        #expect(await manager.sessions.active.isEmpty)
        let info = try await scheduler.api.schedule("mornings")
        #expect(info.active && info.stoppedByHand)
        #expect(await scheduler.scheduler.notices() == ["mornings stopped by hand until Sat 07:00"])

        // A restart reads the record back: still stopped.
        let (restarted, _) = try await start()
        #expect(await restarted.sessions.active.isEmpty)

        // The next interval blocks again.
        clock.advance(23 * 3600)
        let (nextDay, _) = try await start()
        #expect(await nextDay.sessions.active.first?.origin == .schedule("mornings"))
    }

    @Test func disablingEndsABlockButAStrictOneIsRefused() async throws {
        let (manager, scheduler) = try await start()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "soft", profile: "news", days: "all", from: "07:00", to: "12:00"))
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "hard", profile: "video", days: "all", from: "07:00", to: "12:00", strict: true, now: true))
        #expect(await manager.sessions.active.count == 2)
        let disabled = try await scheduler.api.updateSchedule("soft", UpdateScheduleRequest(enabled: false))
        #expect(!disabled.enabled && !disabled.active)
        #expect(await manager.sessions.active.map(\.origin) == [.schedule("hard")])
        #expect(scratch.read("etc/simplylock/schedules.d/soft.toml")?.contains("enabled = false") == true)
        for attempt in [
            { _ = try await scheduler.api.updateSchedule("hard", UpdateScheduleRequest(enabled: false)) },
            { try await scheduler.api.removeSchedule("hard") },
        ] as [() async throws -> Void] {
            do {
                try await attempt()
                Issue.record("a strict block was ended")
            } catch let error as APIError {
                #expect(error.code == .refused)
                #expect(error.message.contains("strict"))
            }
        }
        #expect(await manager.sessions.active.map(\.origin) == [.schedule("hard")])
        // Enabled again inside the interval: it blocks at once.
        _ = try await scheduler.api.updateSchedule("soft", UpdateScheduleRequest(enabled: true))
        #expect(await manager.sessions.active.count == 2)
        try await scheduler.api.removeSchedule("soft")
        #expect(await manager.sessions.active.count == 1)
        #expect(scratch.read("etc/simplylock/schedules.d/soft.toml") == nil)
    }

    @Test func wallClockChangesMoveNonStrictBlocksButNeverShortenStrictOnes() async throws {
        let (manager, scheduler) = try await start()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "soft", profile: "news", days: "all", from: "07:00", to: "12:00"))
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "hard", profile: "video", days: "all", from: "07:00", to: "12:00", strict: true, now: true))
        clock.setWall(by: 5 * 3600)  // someone sets the clock to 13:00
        await scheduler.scheduler.evaluate("wall clock set")
        #expect(await manager.sessions.active.map(\.origin) == [.schedule("hard")])
        #expect(await manager.sessions.active.first?.remaining(at: clock.now()) == .seconds(4 * 3600))
        clock.setWall(by: -5 * 3600 - 1800)  // and back to 07:30: the soft block is back, until 12:00
        await scheduler.scheduler.evaluate("wall clock set")
        let soft = try #require(await manager.sessions.active.first { $0.origin == .schedule("soft") })
        #expect(soft.remaining(at: clock.now()) == .seconds(4.5 * 3600))
    }

    @Test func aZoneChangeMovesSchedulesWithoutTheirOwnZone() async throws {
        let (manager, scheduler) = try await start()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "office", profile: "news", days: "fri", from: "09:00", to: "17:00"))
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "pinned", profile: "video", days: "fri", from: "09:00", to: "17:00", tz: "UTC"))
        #expect(await manager.sessions.active.isEmpty)  // 08:00 UTC
        zone.set("Europe/Berlin")  // 09:00 there
        await scheduler.scheduler.evaluate("time zone file changed")
        let office = try #require(await manager.sessions.active.first)
        #expect(office.origin == .schedule("office"))
        #expect(office.remaining(at: clock.now()) == .seconds(8 * 3600))
        #expect(try await scheduler.api.schedule("office").timeZone == "Europe/Berlin")
        #expect(try await scheduler.api.schedule("pinned").timeZone == "UTC")
    }

    @Test func warningsAreSentOnceAndShownInTheStatus() async throws {
        let (_, scheduler) = try await start()
        var stream = scheduler.core.events.subscribe().map(Event.init).makeAsyncIterator()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "soon", profile: "news", days: "fri", from: "08:03", to: "09:00"))
        await scheduler.scheduler.evaluate("edge")
        scheduler.core.events.publish(.stopping(at: wall))
        var warnings: [Event] = []
        while let event = await stream.next(), event.type != .stopping {
            if event.type == .scheduleWarning { warnings.append(event) }
        }
        #expect(warnings.map(\.message) == ["soon starts in 3m"])
        #expect(warnings.first?.details?["schedule"] == "soon")
        #expect(warnings.first?.details?["edge"] == "start")
        #expect(await scheduler.scheduler.notices() == ["soon starts in 3m"])
        clock.advance(90)
        #expect(await scheduler.scheduler.notices() == ["soon starts in 1m30s"])
    }

    @Test func badRequestsNameTheFieldAndWriteNothing() async throws {
        let (_, scheduler) = try await start()
        let cases: [(CreateScheduleRequest, APIErrorCode, String)] = [
            (CreateScheduleRequest(name: "a", profile: "ghost", days: "all", from: "09:00", to: "10:00"), .notFound, "ghost"),
            (CreateScheduleRequest(name: "a", profile: "news", days: "all", from: "25:00", to: "10:00"), .invalidArgument, "from: "),
            (CreateScheduleRequest(name: "a", profile: "news", cron: "61 * * * *", seconds: 60), .invalidArgument, "cron: "),
            (CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 60, tz: "Mars/Olympus"), .invalidArgument, "tz: "),
            (CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 0), .invalidArgument, "for: "),
            (CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: -300), .invalidArgument, "for: "),
            (CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 1.5), .invalidArgument, "for: "),
            (CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 1e300), .invalidArgument, "seconds: "),
            (CreateScheduleRequest(name: "a", profile: "news", days: "all", from: "09:00", to: "09:00:30"), .invalidArgument, "to: "),
        ]
        for (request, code, fragment) in cases {
            do {
                _ = try await scheduler.api.createSchedule(request)
                Issue.record("accepted \(request)")
            } catch {
                #expect(error.code == code, "\(request): \(error.message)")
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: scratch.paths.schedulesDirectory)) ?? []).isEmpty)
        #expect(try await scheduler.api.schedules().schedules.isEmpty)
        _ = try await scheduler.api.createSchedule(CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 60))
        do {
            _ = try await scheduler.api.createSchedule(CreateScheduleRequest(name: "a", profile: "news", on: "daily", seconds: 60))
            Issue.record("created twice")
        } catch { #expect(error.code == .conflict) }
    }

    @Test func reloadPicksUpHandEditsAndReportsBadFilesWithTheirLine() async throws {
        let (manager, scheduler) = try await start()
        try scratch.write(
            "etc/simplylock/schedules.d/nights.toml",
            "name = \"nights\"\nprofile = \"social\"\ndays = \"all\"\nfrom = \"22:00\"\nto = \"09:30\"\n")
        try scratch.write(
            "etc/simplylock/schedules.d/broken.toml", "name = \"broken\"\nprofile = \"news\"\ncron = \"61 * * * *\"\nfor = \"5m\"\n")
        let result = try await manager.api.reload()
        #expect(
            result.problems.contains { $0.hasSuffix("schedules.d/broken.toml:3: cron: minute 61 out of range 0–59") }, "\(result.problems)")
        // In the daemon this follows the profiles.changed event of the reload.
        await scheduler.scheduler.profilesChanged()
        #expect(await manager.sessions.active.first?.origin == .schedule("nights"))
        #expect(try await scheduler.api.schedule("nights").active)
        #expect(try await scheduler.api.schedules().problems.count == 1)
    }

    @Test func nextIntervalsFollowTheRuleAndItsZone() async throws {
        let (_, scheduler) = try await start()
        _ = try await scheduler.api.createSchedule(
            CreateScheduleRequest(name: "standup", profile: "news", on: "Mon..Fri 09:30", seconds: 2700, tz: "Europe/Berlin"))
        let next = try await scheduler.api.next("standup", count: 3, after: wall)
        #expect(next.map(\.start) == [wall + 1800, wall + 3 * 86_400 + 1800, wall + 4 * 86_400 + 1800])
        #expect(next.allSatisfy { $0.end.timeIntervalSince($0.start) == 2700 })
        do {
            _ = try await scheduler.api.next("standup", count: 0, after: nil)
            Issue.record("count 0 accepted")
        } catch { #expect(error.code == .invalidArgument) }
        do {
            _ = try await scheduler.api.next("ghost", count: 1, after: nil)
            Issue.record("unknown schedule answered")
        } catch { #expect(error.code == .notFound) }
    }
}
