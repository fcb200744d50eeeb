import Foundation
import LockCore
import LockEnforcement
import LockProtocol
import LockStore
import Logging
import TestSupport
import Testing

@testable import LockDaemon

@Suite("PomodoroEngine with the session service, a fake enforcer, a real SQLite store and a hand-moved clock")
struct PomodoroEngineTests {
    let scratch: Scratch
    let clock = ManualClock()
    let fake = FakeEnforcer()
    let managerTimer = RecordingTimer()
    let timer = RecordingTimer()
    let store: StateStore

    init() throws {
        scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.paths.stateDirectory, withIntermediateDirectories: true)
        store = try StateStore(path: scratch.paths.stateDatabase)
    }

    /// The services restored from the store, as the daemon builds them at start-up.
    func makeDaemon(configuration: DaemonConfiguration = DaemonConfiguration()) async throws -> (TestDaemon, TestDaemon) {
        let counter = Counter()
        let daemon = try await TestDaemon.start(
            scratch: scratch, store: store, clock: clock, enforcers: [fake],
            configuration: configuration, sessionTimer: managerTimer, pomodoroTimer: timer,
            counter: counter, ids: { "run\($0)" })
        return (daemon, daemon)
    }

    func blocksNews() async -> Bool { await fake.current?.domains.contains("news.ycombinator.com") == true }

    /// Moves the clock to the engine's armed deadline and lets the timer fire.
    func fireTimer(_ daemon: TestDaemon) async throws {
        let deadline = try #require(timer.last ?? nil, "no deadline armed")
        clock.advance((deadline - clock.now().boot).seconds)
        await daemon.engine.deadlineReached()
    }

    func quick(_ profile: String = "news", cycles: Int? = nil, manual: Bool? = nil, strict: Bool? = nil) -> PomodoroStartRequest {
        PomodoroStartRequest(
            profile: profile, focusSeconds: 60, shortBreakSeconds: 30, longBreakSeconds: 90, longEvery: 2,
            cycles: cycles, manual: manual, strict: strict)
    }

    @Test func focusBlocksTheBreakLiftsItAndTheHistoryRecordsThePomodoro() async throws {
        let (manager, engine) = try await makeDaemon()
        let info = try await engine.api.startPomodoro(quick(cycles: 2))
        #expect(info.state == "running" && info.phase == "focus" && info.cycle == 1 && info.cycles == 2)
        #expect(info.remainingSeconds == 60 && info.next == "short-break" && info.nextSeconds == 30)
        #expect(info.blocking && info.session != nil)
        #expect(await blocksNews())
        #expect(await manager.sessions.active.map(\.origin) == [.pomodoro])
        #expect(timer.last == clock.now().boot + .seconds(60))

        try await fireTimer(engine)
        #expect(!(await blocksNews()))
        #expect(await manager.sessions.active.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == .expired)
        let inBreak = try await engine.api.pomodoro()
        #expect(inBreak.phase == "short-break" && !inBreak.blocking && inBreak.completedFocusPhases == 1)

        try await fireTimer(engine)
        #expect(await blocksNews())
        try await fireTimer(engine)
        let done = try await engine.api.pomodoro()
        #expect(done.state == "finished" && done.finishReason == "completed" && done.completedFocusPhases == 2)
        #expect(!(await blocksNews()))
        #expect(timer.last == .some(nil))

        let history = try await engine.api.pomodoroHistory(limit: 10)
        #expect(history.pomodoros == 2 && history.focusedSeconds == 120)
        #expect(history.entries.map(\.cycle) == [2, 1])
        #expect(history.entries.allSatisfy { $0.profile == "news" && $0.cycles == 2 && $0.run == history.entries[0].run })
    }

    @Test func everyPhaseChangeIsAnEvent() async throws {
        let (_, engine) = try await makeDaemon()
        let stream = engine.core.events.subscribe()
        _ = try await engine.api.startPomodoro(quick(cycles: 1))
        try await fireTimer(engine)
        engine.core.events.close(with: .stopping(at: Date()))
        var kinds: [String] = []
        for await event in stream.map(Event.init) where event.type == .pomodoroPhase {
            kinds.append(event.details?["event"] ?? "?")
            #expect(event.profile == "news")
        }
        #expect(kinds == ["phaseStarted", "phaseEnded", "focusCompleted", "runFinished"])
    }

    @Test func onlyOneRunAtATimeAndBadValuesChangeNothing() async throws {
        let (manager, engine) = try await makeDaemon()
        for (request, fragment) in [
            (PomodoroStartRequest(profile: "news", focusSeconds: 0), "focus: 0s must be at least 1s"),
            (PomodoroStartRequest(profile: "news", shortBreakSeconds: -300), "short-break: -5m must be at least 1s"),
            (PomodoroStartRequest(profile: "news", longBreakSeconds: 30 * 3600), "long-break: 30h is too long (at most 12h)"),
            (PomodoroStartRequest(profile: "news", longEvery: 0), "long-every: 0 must be at least 1"),
            (PomodoroStartRequest(profile: "news", cycles: -1), "cycles: -1 must be at least 1"),
            (PomodoroStartRequest(profile: "news", focusSeconds: 1e300), "focus:"),
        ] {
            do {
                _ = try await engine.api.startPomodoro(request)
                Issue.record("accepted \(request)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.hasPrefix(fragment), "\(error.message)")
            }
        }
        do {
            _ = try await engine.api.startPomodoro(PomodoroStartRequest(profile: "ghost"))
            Issue.record("started for a ghost")
        } catch {
            #expect(error.code == .notFound)
        }
        #expect(try await engine.api.pomodoro() == .none)
        #expect(try store.value(Data.self, forKey: "pomodoro") == nil)
        #expect(await manager.sessions.active.isEmpty)

        _ = try await engine.api.startPomodoro(quick())
        do {
            _ = try await engine.api.startPomodoro(quick("social"))
            Issue.record("a second run started")
        } catch {
            #expect(error.code == .conflict)
            #expect(error.message.contains("already running for news"))
        }
        #expect(try await engine.api.pomodoro().profile == "news")
        // A finished run does not stand in the way of the next one.
        _ = try await engine.api.pomodoro(.stop)
        #expect(try await engine.api.startPomodoro(quick("social")).profile == "social")
    }

    @Test func actionsWithoutARunAreNotFound() async throws {
        let (_, engine) = try await makeDaemon()
        for action in PomodoroAction.allCases {
            do {
                _ = try await engine.api.pomodoro(action)
                Issue.record("\(action) without a run")
            } catch {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test func pauseFreezesTheTimeAndLiftsTheBlockResumeBringsItBack() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.api.startPomodoro(quick())
        clock.advance(20)
        let paused = try await engine.api.pomodoro(.pause)
        #expect(paused.state == "paused" && paused.remainingSeconds == 40 && !paused.blocking)
        #expect(!(await blocksNews()))
        #expect(timer.last == .some(nil))
        clock.advance(3600)
        #expect(try await engine.api.pomodoro().remainingSeconds == 40)
        do {
            _ = try await engine.api.pomodoro(.pause)
            Issue.record("paused twice")
        } catch { #expect(error.code == .conflict) }
        let resumed = try await engine.api.pomodoro(.resume)
        #expect(resumed.state == "running" && resumed.remainingSeconds == 40 && resumed.blocking)
        #expect(await blocksNews())
        #expect(timer.last == clock.now().boot + .seconds(40))
        try await fireTimer(engine)
        // Paused time is not focus time.
        #expect(try await engine.api.pomodoroHistory(limit: 1).entries.first?.focusedSeconds == 60)
    }

    @Test func strictFocusCannotBeSkippedOrStoppedAndPausingKeepsTheBlock() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await engine.api.startPomodoro(quick(strict: true))
        for action in [PomodoroAction.skip, .stop] {
            do {
                _ = try await engine.api.pomodoro(action)
                Issue.record("\(action) in a strict focus")
            } catch {
                #expect(error.code == .refused)
                #expect(error.message.hasPrefix("strict mode"))
            }
        }
        do {
            _ = try await manager.api.stop("news")
            Issue.record("stopped the pomodoro session by hand")
        } catch {
            #expect(error.code == .refused)
            #expect(error.hint?.contains("lockctl pomodoro stop") == true)
        }
        let paused = try await engine.api.pomodoro(.pause)
        #expect(paused.blocking)
        #expect(await blocksNews())
        // The session stays open while paused: its end is kept beyond the longest phase.
        clock.advance(11 * 3600)
        await engine.engine.checkpoint()
        await manager.sessions.expireDue()
        #expect(await blocksNews())
        #expect(try await manager.api.status().sessions.first?.remainingSeconds == 12 * 3600)
        _ = try await engine.api.pomodoro(.resume)
        #expect(try await manager.api.status().sessions.first?.remainingSeconds == 60)
        try await fireTimer(engine)
        // In the break, a strict run can be stopped.
        #expect(try await engine.api.pomodoro(.stop).state == "finished")
    }

    @Test func manualModeWaitsForNext() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.api.startPomodoro(quick(manual: true))
        do {
            _ = try await engine.api.pomodoro(.next)
            Issue.record("next during focus")
        } catch { #expect(error.code == .conflict) }
        try await fireTimer(engine)
        let waiting = try await engine.api.pomodoro()
        #expect(waiting.state == "waiting" && waiting.next == "short-break" && !waiting.blocking)
        #expect(timer.last == .some(nil))
        clock.advance(600)
        let started = try await engine.api.pomodoro(.next)
        #expect(started.phase == "short-break" && started.remainingSeconds == 30)
        try await fireTimer(engine)
        _ = try await engine.api.pomodoro(.next)
        #expect(await blocksNews())
    }

    @Test func skipMovesOnAndManualSessionsRunBeside() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.api.start(StartRequest(profile: "news", seconds: 3600))
        _ = try await engine.api.startPomodoro(quick("social"))
        #expect(await fake.current?.domains.contains("facebook.com") == true)
        #expect(await blocksNews())
        let skipped = try await engine.api.pomodoro(.skip)
        #expect(skipped.phase == "short-break" && skipped.completedFocusPhases == 0)
        #expect(await fake.current?.domains.contains("facebook.com") == false)
        #expect(await blocksNews())
        #expect(try await engine.api.pomodoroHistory(limit: 5).pomodoros == 0)
    }

    @Test func aRestartInTheSameBootResumesTheSamePhaseExactly() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.api.startPomodoro(quick(cycles: 4))
        try await fireTimer(first)
        try await fireTimer(first)  // focus 2
        clock.advance(25)
        let (_, second) = try await makeDaemon()
        let info = try await second.api.pomodoro()
        #expect(info.phase == "focus" && info.cycle == 2 && info.remainingSeconds == 35 && info.blocking)
        #expect(await blocksNews())
        #expect(timer.last == clock.now().boot + .seconds(35))
    }

    @Test func aRebootResumesWithTheCheckpointMinusTheTimeOffAndDoesNotCreditIt() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.api.startPomodoro(quick())
        clock.advance(20)
        await first.engine.checkpoint()
        clock.reboot(offSeconds: 15, bootID: "boot-2")
        let (_, second) = try await makeDaemon()
        let info = try await second.api.pomodoro()
        #expect(info.phase == "focus" && info.remainingSeconds == 25 && info.blocking)
        #expect(await blocksNews())
        try await fireTimer(second)
        // 60 s planned, 15 s of them passed while the machine was off.
        #expect(try await second.api.pomodoroHistory(limit: 1).entries.first?.focusedSeconds == 45)
    }

    @Test func aWeekendOffCreditsNothingLiftsTheBlockAndWaits() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.api.startPomodoro(quick())
        clock.advance(10)
        await first.engine.checkpoint()
        clock.reboot(offSeconds: 60 * 3600, bootID: "boot-2")
        let (manager, second) = try await makeDaemon()
        let info = try await second.api.pomodoro()
        #expect(info.state == "waiting" && info.next == "short-break" && info.completedFocusPhases == 0)
        #expect(info.summary.contains("off or asleep"))
        #expect(await manager.sessions.active.isEmpty)
        #expect(!(await blocksNews()))
        #expect(try await second.api.pomodoroHistory(limit: 5).pomodoros == 0)
        #expect(await second.engine.notices().first?.contains("waiting") == true)
        _ = try await second.api.pomodoro(.next)
        #expect(try await second.api.pomodoro().phase == "short-break")
    }

    @Test func aLongSuspendIsNotCredited() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.api.startPomodoro(quick())
        clock.advance(10)
        await engine.engine.checkpoint()
        clock.advance(8 * 3600)  // asleep; the timer fires on wake-up
        await engine.engine.deadlineReached()
        let info = try await engine.api.pomodoro()
        #expect(info.state == "waiting" && info.completedFocusPhases == 0)
        #expect(!(await blocksNews()))
        #expect(try await engine.api.pomodoroHistory(limit: 5).pomodoros == 0)
    }

    @Test func theDefaultsComeFromTheConfiguration() async throws {
        var configuration = DaemonConfiguration()
        configuration.pomodoro = PomodoroConfig(
            focus: .seconds(50 * 60), shortBreak: .seconds(600), longBreak: .seconds(1800),
            longEvery: 3, cycles: 6, manual: true)
        let (_, engine) = try await makeDaemon(configuration: configuration)
        let info = try await engine.api.startPomodoro(PomodoroStartRequest(profile: "news", shortBreakSeconds: 120))
        let settings = try #require(info.settings)
        #expect(settings.focusSeconds == 3000 && settings.shortBreakSeconds == 120 && settings.longBreakSeconds == 1800)
        #expect(settings.longEvery == 3 && settings.cycles == 6 && settings.manual && !settings.strict)
    }

    @Test func aProfileDeletedDuringABreakIsReportedAndRetried() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.api.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        _ = try await engine.api.startPomodoro(quick("focus"))
        try await fireTimer(engine)
        // The API refuses to delete a profile the timer uses; a hand edit and a reload can still remove it.
        do {
            try await manager.api.deleteProfile("focus")
            Issue.record("deleted a profile the Pomodoro timer uses")
        } catch {
            #expect(error.code == .refused)
        }
        try FileManager.default.removeItem(atPath: scratch.path + "/etc/simplylock/profiles.d/focus.toml")
        _ = try await manager.api.reload()
        try await fireTimer(engine)  // focus 2 cannot block
        let info = try await engine.api.pomodoro()
        #expect(info.phase == "focus" && info.session == nil)
        #expect(info.problem?.contains("no profile named \"focus\"") == true)
        #expect(await engine.engine.notices().contains { $0.contains("cannot block focus") })
        _ = try await manager.api.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        await engine.engine.checkpoint()
        #expect(try await engine.api.pomodoro().problem == nil)
        #expect(await fake.current?.domains.contains("example.com") == true)
    }

    @Test func aResumeThatCannotBlockIsUndone() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.api.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        _ = try await engine.api.startPomodoro(quick("focus"))
        _ = try await engine.api.pomodoro(.pause)
        try FileManager.default.removeItem(atPath: scratch.path + "/etc/simplylock/profiles.d/focus.toml")
        _ = try await manager.api.reload()
        do {
            _ = try await engine.api.pomodoro(.resume)
            Issue.record("resumed a focus phase that cannot block")
        } catch {
            #expect(error.code == .notFound)
        }
        let info = try await engine.api.pomodoro()
        #expect(info.state == "paused" && info.problem == nil)
        #expect(timer.last == .some(nil))
        // What was saved is the paused run, not the refused resume.
        let (_, restarted) = try await makeDaemon()
        #expect(try await restarted.api.pomodoro().state == "paused")
    }

    @Test func anUnreadableSavedRunIsDroppedWithItsSession() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await engine.api.startPomodoro(quick())
        #expect(await manager.sessions.active.count == 1)
        try store.setValue(["garbage": 1], forKey: "pomodoro")
        let (again, restarted) = try await makeDaemon()
        #expect(try await restarted.api.pomodoro() == .none)
        #expect(await again.sessions.active.isEmpty)
        #expect(!(await blocksNews()))
    }
}
