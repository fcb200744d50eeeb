import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import TestSupport
import Testing

@testable import LockDaemon

/// Everything that changes at one instant is one batch: one pass over the enforcers (one hosts
/// file write), one transaction, whoever owns the sessions.
@Suite("Session owners reconciled as one batch")
struct OwnerBatchTests {
    let scratch: Scratch
    let clock = ManualClock()  // Friday 2027-01-15 08:00:00 UTC
    let fake = FakeEnforcer()
    let pomodoroTimer = RecordingTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    func start() async throws -> TestDaemon {
        try await TestDaemon.start(scratch: scratch, store: store, clock: clock, enforcers: [fake], pomodoroTimer: pomodoroTimer)
    }

    func schedule(_ name: String, _ profile: String, from: String, to: String) throws {
        try scratch.write(
            "etc/simplylock/schedules.d/\(name).toml",
            """
            name = "\(name)"
            profile = "\(profile)"
            days = "all"
            from = "\(from)"
            to = "\(to)"
            """)
    }

    @Test func twoSchedulesStartingTogetherAreEnforcedOnce() async throws {
        try schedule("news-mornings", "news", from: "09:00", to: "10:00")
        try schedule("video-mornings", "video", from: "09:00", to: "11:00")
        let daemon = try await start()
        #expect(await daemon.sessions.active.isEmpty)
        let before = await fake.applied.count
        clock.advance(3600)
        await daemon.scheduler.evaluate("edge")
        #expect(
            await daemon.sessions.active.map(\.origin).sorted { $0.rawValue < $1.rawValue } == [
                .schedule("news-mornings"), .schedule("video-mornings"),
            ])
        // One apply carrying both blocks, not one per schedule.
        #expect(await fake.applied.count == before + 1)
        let domains = try #require(await fake.current?.domains)
        #expect(domains.contains("news.ycombinator.com") && domains.contains("youtube.com"))
        // Nothing left over for the second look.
        await daemon.scheduler.evaluate("edge")
        #expect(await fake.applied.count == before + 1)
        #expect(try store.history(limit: 10).count == 2)
    }

    @Test func aPomodoroPhaseEndAndAScheduleEdgeAtTheSameInstantAreOnePass() async throws {
        try schedule("video-soon", "video", from: "08:01", to: "09:00")
        let daemon = try await start()
        _ = try await daemon.api.startPomodoro(
            PomodoroStartRequest(profile: "news", focusSeconds: 60, shortBreakSeconds: 300, longBreakSeconds: 900, longEvery: 4))
        #expect(await fake.current?.domains.contains("news.ycombinator.com") == true)
        let before = await fake.applied.count
        clock.advance(60)
        // The Pomodoro timer fires first; the schedule's edge of the same instant comes along.
        await daemon.engine.deadlineReached()
        #expect(await fake.applied.count == before + 1)
        let domains = try #require(await fake.current?.domains)
        #expect(!domains.contains("news.ycombinator.com") && domains.contains("youtube.com"))
        #expect(try await daemon.api.pomodoro().phase == "short-break")
        // The schedule's own timer then finds nothing to do, and the session's deadline neither.
        await daemon.scheduler.evaluate("edge")
        await daemon.sessions.expireDue()
        #expect(await fake.applied.count == before + 1)
        #expect(await daemon.sessions.active.map(\.origin) == [.schedule("video-soon")])
    }

    @Test func aManualStartCarriesTheOwnersDueChangesInTheSamePass() async throws {
        try schedule("video-soon", "video", from: "08:01", to: "09:00")
        let daemon = try await start()
        let before = await fake.applied.count
        clock.advance(60)
        // The schedule's timer has not fired yet; the start at that instant brings its edge along.
        _ = try await daemon.api.start(StartRequest(profile: "news", seconds: 600))
        #expect(await fake.applied.count == before + 1)
        #expect(Set(await daemon.sessions.active.map(\.origin)) == [.manual, .schedule("video-soon")])
        await daemon.scheduler.evaluate("edge")
        #expect(await fake.applied.count == before + 1)
    }
}
