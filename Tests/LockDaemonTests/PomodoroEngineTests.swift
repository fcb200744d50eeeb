import Foundation
import LockCore
import LockDaemon
import LockEnforcement
import LockProtocol
import LockStore
import Logging
import Testing

@Suite("PomodoroEngine with a BlockManager, a fake enforcer, a real SQLite store and a hand-moved clock")
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

    /// A manager and an engine restored from the store, as the daemon builds them at start-up.
    func makeDaemon(configuration: DaemonConfiguration = DaemonConfiguration(), events: EventBus = EventBus())
        async throws -> (BlockManager, PomodoroEngine) {
        let clock = self.clock
        let counter = Counter()
        let manager = try await makeBlockManager(scratch: scratch, store: store, clock: clock, enforcer: fake,
                                                 configuration: configuration, events: events, counter: counter)
        await manager.setTimer(managerTimer)
        let engine = PomodoroEngine(manager: manager, store: store, events: events, logger: Logger(label: "test"),
                                    clock: { clock.now() }, makeID: { "run\(counter.next())" })
        await engine.restore()
        await engine.setTimer(timer)
        return (manager, engine)
    }

    func blocksNews() async -> Bool { await fake.current?.domains.contains("news.ycombinator.com") == true }

    /// Moves the clock to the engine's armed deadline and lets the timer fire.
    func fireTimer(_ engine: PomodoroEngine) async throws {
        let deadline = try #require(timer.last ?? nil, "no deadline armed")
        clock.advance((deadline - clock.now().boot).seconds)
        await engine.deadlineReached()
    }

    func quick(_ profile: String = "news", cycles: Int? = nil, manual: Bool? = nil, strict: Bool? = nil) -> PomodoroStartRequest {
        PomodoroStartRequest(profile: profile, focusSeconds: 60, shortBreakSeconds: 30, longBreakSeconds: 90, longEvery: 2,
                             cycles: cycles, manual: manual, strict: strict)
    }

    @Test func focusBlocksTheBreakLiftsItAndTheHistoryRecordsThePomodoro() async throws {
        let (manager, engine) = try await makeDaemon()
        let info = try await engine.start(quick(cycles: 2))
        #expect(info.state == "running" && info.phase == "focus" && info.cycle == 1 && info.cycles == 2)
        #expect(info.remainingSeconds == 60 && info.next == "short-break" && info.nextSeconds == 30)
        #expect(info.blocking && info.session != nil)
        #expect(await blocksNews())
        #expect(await manager.activeSessions.map(\.origin) == [.pomodoro])
        #expect(timer.last == clock.now().boot + .seconds(60))

        try await fireTimer(engine)
        #expect(!(await blocksNews()))
        #expect(await manager.activeSessions.isEmpty)
        #expect(try store.history(limit: 1).first?.endReason == "expired")
        let inBreak = await engine.info()
        #expect(inBreak.phase == "short-break" && !inBreak.blocking && inBreak.completedFocusPhases == 1)

        try await fireTimer(engine)
        #expect(await blocksNews())
        try await fireTimer(engine)
        let done = await engine.info()
        #expect(done.state == "finished" && done.finishReason == "completed" && done.completedFocusPhases == 2)
        #expect(!(await blocksNews()))
        #expect(timer.last == .some(nil))

        let history = try await engine.history(limit: 10)
        #expect(history.pomodoros == 2 && history.focusedSeconds == 120)
        #expect(history.entries.map(\.cycle) == [2, 1])
        #expect(history.entries.allSatisfy { $0.profile == "news" && $0.cycles == 2 && $0.run == history.entries[0].run })
    }

    @Test func everyPhaseChangeIsAnEvent() async throws {
        let events = EventBus()
        let stream = await events.subscribe()
        let (_, engine) = try await makeDaemon(events: events)
        _ = try await engine.start(quick(cycles: 1))
        try await fireTimer(engine)
        await events.finishAll()
        var kinds: [String] = []
        for await event in stream where event.type == .pomodoroPhase {
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
                _ = try await engine.start(request)
                Issue.record("accepted \(request)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.hasPrefix(fragment), "\(error.message)")
            }
        }
        do { _ = try await engine.start(PomodoroStartRequest(profile: "ghost")); Issue.record("started for a ghost") } catch {
            #expect(error.code == .notFound)
        }
        #expect(await engine.info() == .none)
        #expect(try store.value(Data.self, forKey: "pomodoro") == nil)
        #expect(await manager.activeSessions.isEmpty)

        _ = try await engine.start(quick())
        do { _ = try await engine.start(quick("social")); Issue.record("a second run started") } catch {
            #expect(error.code == .conflict)
            #expect(error.message.contains("already running for news"))
        }
        #expect(await engine.info().profile == "news")
        // A finished run does not stand in the way of the next one.
        _ = try await engine.perform(.stop)
        #expect(try await engine.start(quick("social")).profile == "social")
    }

    @Test func actionsWithoutARunAreNotFound() async throws {
        let (_, engine) = try await makeDaemon()
        for action in PomodoroAction.allCases {
            do { _ = try await engine.perform(action); Issue.record("\(action) without a run") } catch {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test func pauseFreezesTheTimeAndLiftsTheBlockResumeBringsItBack() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.start(quick())
        clock.advance(20)
        let paused = try await engine.perform(.pause)
        #expect(paused.state == "paused" && paused.remainingSeconds == 40 && !paused.blocking)
        #expect(!(await blocksNews()))
        #expect(timer.last == .some(nil))
        clock.advance(3600)
        #expect(await engine.info().remainingSeconds == 40)
        do { _ = try await engine.perform(.pause); Issue.record("paused twice") } catch { #expect(error.code == .conflict) }
        let resumed = try await engine.perform(.resume)
        #expect(resumed.state == "running" && resumed.remainingSeconds == 40 && resumed.blocking)
        #expect(await blocksNews())
        #expect(timer.last == clock.now().boot + .seconds(40))
        try await fireTimer(engine)
        // Paused time is not focus time.
        #expect(try await engine.history(limit: 1).entries.first?.focusedSeconds == 60)
    }

    @Test func strictFocusCannotBeSkippedOrStoppedAndPausingKeepsTheBlock() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await engine.start(quick(strict: true))
        for action in [PomodoroAction.skip, .stop] {
            do { _ = try await engine.perform(action); Issue.record("\(action) in a strict focus") } catch {
                #expect(error.code == .refused)
                #expect(error.message.hasPrefix("strict mode"))
            }
        }
        do { _ = try await manager.stop("news"); Issue.record("stopped the pomodoro session by hand") } catch {
            #expect(error.code == .refused)
            #expect(error.message.contains("lockctl pomodoro stop"))
        }
        let paused = try await engine.perform(.pause)
        #expect(paused.blocking)
        #expect(await blocksNews())
        // The session stays open while paused: its end is kept beyond the longest phase.
        clock.advance(11 * 3600)
        await engine.checkpoint()
        await manager.expireDue()
        #expect(await blocksNews())
        #expect(await manager.status().sessions.first?.remainingSeconds == 12 * 3600)
        _ = try await engine.perform(.resume)
        #expect(await manager.status().sessions.first?.remainingSeconds == 60)
        try await fireTimer(engine)
        // In the break, a strict run can be stopped.
        #expect(try await engine.perform(.stop).state == "finished")
    }

    @Test func manualModeWaitsForNext() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.start(quick(manual: true))
        do { _ = try await engine.perform(.next); Issue.record("next during focus") } catch { #expect(error.code == .conflict) }
        try await fireTimer(engine)
        let waiting = await engine.info()
        #expect(waiting.state == "waiting" && waiting.next == "short-break" && !waiting.blocking)
        #expect(timer.last == .some(nil))
        clock.advance(600)
        let started = try await engine.perform(.next)
        #expect(started.phase == "short-break" && started.remainingSeconds == 30)
        try await fireTimer(engine)
        _ = try await engine.perform(.next)
        #expect(await blocksNews())
    }

    @Test func skipMovesOnAndManualSessionsRunBeside() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.start(StartRequest(profile: "news", seconds: 3600))
        _ = try await engine.start(quick("social"))
        #expect(await fake.current?.domains.contains("facebook.com") == true)
        #expect(await blocksNews())
        let skipped = try await engine.perform(.skip)
        #expect(skipped.phase == "short-break" && skipped.completedFocusPhases == 0)
        #expect(await fake.current?.domains.contains("facebook.com") == false)
        #expect(await blocksNews())
        #expect(try await engine.history(limit: 5).pomodoros == 0)
    }

    @Test func aRestartInTheSameBootResumesTheSamePhaseExactly() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.start(quick(cycles: 4))
        try await fireTimer(first)
        try await fireTimer(first)          // focus 2
        clock.advance(25)
        let (_, second) = try await makeDaemon()
        let info = await second.info()
        #expect(info.phase == "focus" && info.cycle == 2 && info.remainingSeconds == 35 && info.blocking)
        #expect(await blocksNews())
        #expect(timer.last == clock.now().boot + .seconds(35))
    }

    @Test func aRebootResumesWithTheCheckpointMinusTheTimeOffAndDoesNotCreditIt() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.start(quick())
        clock.advance(20)
        await first.checkpoint()
        clock.reboot(offSeconds: 15, bootID: "boot-2")
        let (_, second) = try await makeDaemon()
        let info = await second.info()
        #expect(info.phase == "focus" && info.remainingSeconds == 25 && info.blocking)
        #expect(await blocksNews())
        try await fireTimer(second)
        // 60 s planned, 15 s of them passed while the machine was off.
        #expect(try await second.history(limit: 1).entries.first?.focusedSeconds == 45)
    }

    @Test func aWeekendOffCreditsNothingLiftsTheBlockAndWaits() async throws {
        let (_, first) = try await makeDaemon()
        _ = try await first.start(quick())
        clock.advance(10)
        await first.checkpoint()
        clock.reboot(offSeconds: 60 * 3600, bootID: "boot-2")
        let (manager, second) = try await makeDaemon()
        let info = await second.info()
        #expect(info.state == "waiting" && info.next == "short-break" && info.completedFocusPhases == 0)
        #expect(info.summary.contains("off or asleep"))
        #expect(await manager.activeSessions.isEmpty)
        #expect(!(await blocksNews()))
        #expect(try await second.history(limit: 5).pomodoros == 0)
        #expect(await second.notices().first?.contains("waiting") == true)
        _ = try await second.perform(.next)
        #expect(await second.info().phase == "short-break")
    }

    @Test func aLongSuspendIsNotCredited() async throws {
        let (_, engine) = try await makeDaemon()
        _ = try await engine.start(quick())
        clock.advance(10)
        await engine.checkpoint()
        clock.advance(8 * 3600)             // asleep; the timer fires on wake-up
        await engine.deadlineReached()
        let info = await engine.info()
        #expect(info.state == "waiting" && info.completedFocusPhases == 0)
        #expect(!(await blocksNews()))
        #expect(try await engine.history(limit: 5).pomodoros == 0)
    }

    @Test func theDefaultsComeFromTheConfiguration() async throws {
        var configuration = DaemonConfiguration()
        configuration.pomodoro = PomodoroConfig(focus: .seconds(50 * 60), shortBreak: .seconds(600), longBreak: .seconds(1800),
                                                longEvery: 3, cycles: 6, manual: true)
        let (_, engine) = try await makeDaemon(configuration: configuration)
        let info = try await engine.start(PomodoroStartRequest(profile: "news", shortBreakSeconds: 120))
        let settings = try #require(info.settings)
        #expect(settings.focusSeconds == 3000 && settings.shortBreakSeconds == 120 && settings.longBreakSeconds == 1800)
        #expect(settings.longEvery == 3 && settings.cycles == 6 && settings.manual && !settings.strict)
    }

    @Test func aProfileDeletedDuringABreakIsReportedAndRetried() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        _ = try await engine.start(quick("focus"))
        try await fireTimer(engine)
        try await manager.deleteProfile("focus")
        try await fireTimer(engine)         // focus 2 cannot block
        let info = await engine.info()
        #expect(info.phase == "focus" && info.session == nil)
        #expect(info.problem?.contains("no profile named \"focus\"") == true)
        #expect(await engine.notices().contains { $0.contains("cannot block focus") })
        _ = try await manager.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        await engine.checkpoint()
        #expect(await engine.info().problem == nil)
        #expect(await fake.current?.domains.contains("example.com") == true)
    }

    @Test func aResumeThatCannotBlockIsUndone() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await manager.createProfile(CreateProfileRequest(name: "focus", domains: ["example.com"]))
        _ = try await engine.start(quick("focus"))
        _ = try await engine.perform(.pause)
        try await manager.deleteProfile("focus")
        do { _ = try await engine.perform(.resume); Issue.record("resumed a focus phase that cannot block") } catch {
            #expect(error.code == .notFound)
        }
        let info = await engine.info()
        #expect(info.state == "paused" && info.problem == nil)
        #expect(timer.last == .some(nil))
        // What was saved is the paused run, not the refused resume.
        let (_, restarted) = try await makeDaemon()
        #expect(await restarted.info().state == "paused")
    }

    @Test func anUnreadableSavedRunIsDroppedWithItsSession() async throws {
        let (manager, engine) = try await makeDaemon()
        _ = try await engine.start(quick())
        #expect(await manager.activeSessions.count == 1)
        try store.setValue(["garbage": 1], forKey: "pomodoro")
        let (again, restarted) = try await makeDaemon()
        #expect(await restarted.info() == .none)
        #expect(await again.activeSessions.isEmpty)
        #expect(!(await blocksNews()))
    }
}
