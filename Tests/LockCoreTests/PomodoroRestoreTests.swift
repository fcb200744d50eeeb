import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Restoring after a restart")
struct PomodoroRestoreTests {
    /// A quick run started at 0, checkpointed at `t` (optionally paused there), saved and
    /// decoded back, as the daemon would on restart.
    func saved(_ config: PomodoroConfig = quick, checkpointAt t: Double, pause: Bool = false) throws -> PomodoroSnapshot {
        var m = try started(config).checkpoint(at: at(t)).machine
        if pause { m = try m.pause(at: at(t)).machine }
        let data = try JSONEncoder().encode(m.snapshot)
        return try JSONDecoder().decode(PomodoroSnapshot.self, from: data)
    }

    // MARK: Same boot

    @Test func sameBootUsesTheBootClockDeadlineExactly() throws {
        let snap = try saved(checkpointAt: 0.5)
        // The wall clock was moved a day forward meanwhile: irrelevant within the same boot.
        let out = PomodoroMachine.restore(snap, at: reading(boot: 1.5, wall: 86_400, id: "A"))
        #expect(out.events.isEmpty)
        #expect(out.machine.state == .running(.focus, deadline: BootTime(seconds: 2)))
        #expect(out.machine.isBlocking(at: reading(boot: 1.5, wall: 86_400, id: "A")))
    }

    @Test(arguments: [(0.5, "focus 1", 2.0), (2.5, "short-break 1", 3.0), (6.0, "long-break 2", 8.0)])
    func sameBootInEachPhase(t: Double, phase: String, deadline: Double) throws {
        let snap = try saved(checkpointAt: t)
        let out = PomodoroMachine.restore(snap, at: at(t + 0.25))
        #expect(out.events.isEmpty)
        #expect(phaseText(out.machine) == phase)
        #expect(out.machine.nextDeadline == BootTime(seconds: deadline))
    }

    @Test func sameBootCatchesUpPhasesThatEndedWhileTheDaemonWasDown() throws {
        let snap = try saved(checkpointAt: 0.5)
        let out = PomodoroMachine.restore(snap, at: at(3.5))
        // Down from the checkpoint at 0.5 until 3.5: only the first half second of focus 1 was
        // watched, and nothing of the break; focus 2 has been running unwatched for 0.5 s.
        #expect(
            out.log == [
                "end focus 1 completed 500000000ns", "focused 1 500000000ns", "start short-break 1 1s",
                "end short-break 1 completed 0s", "start focus 2 2s",
            ])
        #expect(out.machine.nextDeadline == BootTime(seconds: 5))
        #expect(out.machine.unwatched == .milliseconds(500))
        #expect(out.machine.advance(to: at(5)).log.prefix(2) == ["end focus 2 completed 1500000000ns", "focused 2 1500000000ns"])
    }

    @Test func sameBootRestartWithinAPhaseCreditsOnlyTheWatchedTime() throws {
        let snap = try saved(checkpointAt: 0.5)
        let restored = PomodoroMachine.restore(snap, at: at(1.25)).machine
        #expect(restored.unwatched == .milliseconds(750))
        #expect(restored.advance(to: at(2)).log.prefix(2) == ["end focus 1 completed 1250000000ns", "focused 1 1250000000ns"])
    }

    @Test func sameBootAfterALongStopTheMissedEndIsInterrupted() throws {
        let snap = try saved(checkpointAt: 0.5)
        let out = PomodoroMachine.restore(snap, at: at(3600))
        #expect(out.log == ["end focus 1 interrupted 500000000ns", "wait short-break 1"])
        #expect(out.machine.completedFocusPhases == 0)
        #expect(!out.machine.isBlocking(at: at(3600)))
    }

    @Test func sameBootPausedWaitingAndFinished() throws {
        let paused = PomodoroMachine.restore(try saved(checkpointAt: 0.5, pause: true), at: at(100))
        #expect(paused.machine.state == .paused(.focus, remaining: .milliseconds(1500)))
        let waiting = PomodoroMachine.restore(try saved(quick(manual: true), checkpointAt: 2.5), at: at(100))
        #expect(waiting.events.isEmpty)
        #expect(waiting.machine.state == .waiting(next: .shortBreak))
        let finished = PomodoroMachine.restore(try saved(quick(cycles: 1), checkpointAt: 3), at: at(100))
        #expect(finished.machine.state == .finished(.completed))
        #expect(finished.machine.completedFocusPhases == 1)
    }

    // MARK: After a reboot

    @Test func rebootSubtractsTheWallTimeThatPassed() throws {
        let snap = try saved(checkpointAt: 0.5)  // 1.5 s of focus left at wall 0.5
        let now = reading(boot: 10, wall: 1.0, id: "B")
        let out = PomodoroMachine.restore(snap, at: now)
        #expect(out.events.isEmpty)
        #expect(out.machine.state == .running(.focus, deadline: BootTime(seconds: 11)))
        #expect(out.machine.isBlocking(at: now))
        #expect(out.machine.cycle == 1)
        #expect(out.machine.lastCheckpoint.bootID == "B")
        #expect(out.machine.lastCheckpoint.remaining == .seconds(1))
    }

    @Test func rebootWithTheWallClockMovedBackwardsAddsNoTime() throws {
        let snap = try saved(checkpointAt: 0.5)
        let out = PomodoroMachine.restore(snap, at: reading(boot: 10, wall: -3600, id: "B"))
        #expect(out.machine.state == .running(.focus, deadline: BootTime(seconds: 11.5)))
    }

    @Test func rebootWithMoreWallTimePassedThanRemained() throws {
        // Focus had 1.5 s left at wall 0.5, so it ended at wall 2; the short break then ran
        // 2–3 and focus 2 started at wall 3 and is 0.5 s in at wall 3.5.
        let snap = try saved(checkpointAt: 0.5)
        let now = reading(boot: 10, wall: 3.5, id: "B")
        let out = PomodoroMachine.restore(snap, at: now)
        // The 3 s off are not credited: focus 1 keeps the 0.5 s watched before the checkpoint.
        #expect(
            out.log == [
                "end focus 1 completed 500000000ns", "focused 1 500000000ns", "start short-break 1 1s",
                "end short-break 1 completed 0s", "start focus 2 2s",
            ])
        #expect(out.events.first?.at == epoch.addingTimeInterval(2))
        #expect(out.machine.state == .running(.focus, deadline: BootTime(seconds: 11.5)))
        #expect(out.machine.unwatched == .milliseconds(500))
        #expect(out.machine.isBlocking(at: now))
    }

    @Test func rebootWithExactlyTheRemainingTimePassedEndsThePhase() throws {
        let snap = try saved(checkpointAt: 0.5)
        let out = PomodoroMachine.restore(snap, at: reading(boot: 10, wall: 2, id: "B"))
        #expect(out.log == ["end focus 1 completed 500000000ns", "focused 1 500000000ns", "start short-break 1 1s"])
        #expect(out.machine.nextDeadline == BootTime(seconds: 11))
    }

    @Test func aWeekendOffCreditsNothingAndTheRunWaits() throws {
        // The author's example: a repeating run with the default phases, the machine switched
        // off ten minutes into a focus phase and switched on again 60 hours later.
        let m = try PomodoroMachine.start(PomodoroConfig(), at: at(0)).machine.checkpoint(at: at(600)).machine
        let data = try JSONEncoder().encode(m.snapshot)
        let snap = try JSONDecoder().decode(PomodoroSnapshot.self, from: data)
        let now = reading(boot: 20, wall: 600 + 60 * 3600, id: "B")
        let out = PomodoroMachine.restore(snap, at: now)
        #expect(out.log == ["end focus 1 interrupted 600s", "wait short-break 1"])
        #expect(out.machine.completedFocusPhases == 0)
        #expect(!out.machine.isBlocking(at: now))
        #expect(out.machine.nextDeadline == nil)
    }

    @Test func rebootAfterAVeryLongTimeEndsABoundedRunAtItsLastFocus() throws {
        let snap = try saved(quick(cycles: 1), checkpointAt: 0.5)
        let out = PomodoroMachine.restore(snap, at: reading(boot: 10, wall: 7 * 86_400, id: "B"))
        #expect(out.machine.state == .finished(.completed))
        #expect(out.machine.completedFocusPhases == 0)
        #expect(out.log == ["end focus 1 interrupted 500000000ns", "finish completed 0"])
        #expect(out.events.last?.at == epoch.addingTimeInterval(2))
    }

    @Test(arguments: [(2.5, "short-break 1", 0.5), (6.0, "long-break 2", 2.0), (9.0, "focus 3", 1.0)])
    func rebootInEachPhase(t: Double, phase: String, left: Double) throws {
        let snap = try saved(checkpointAt: t)
        let out = PomodoroMachine.restore(snap, at: reading(boot: 4, wall: t + 0.25, id: "B"))
        #expect(out.events.isEmpty)
        #expect(phaseText(out.machine) == phase)
        #expect(out.machine.nextDeadline == BootTime(seconds: 4 + left - 0.25))
    }

    @Test func rebootUsesTheLatestCheckpoint() throws {
        // The wall clock is moved an hour forward during focus (same boot: no effect), and the
        // daemon then saves a checkpoint. After a reboot only the fresh checkpoint knows that
        // the hour was a clock change, not time spent focusing.
        let m = try started()
        let stale = m.snapshot
        let afterClockChange = reading(boot: 1.5, wall: 3601.5, id: "A")
        #expect(m.isBlocking(at: afterClockChange))
        let fresh = m.checkpoint(at: afterClockChange).machine.snapshot
        let now = reading(boot: 3, wall: 3601.75, id: "B")
        #expect(PomodoroMachine.restore(fresh, at: now).machine.state == .running(.focus, deadline: BootTime(seconds: 3.25)))
        #expect(PomodoroMachine.restore(fresh, at: now).events.isEmpty)
        // The stale one makes the focus look an hour overdue: it ends unwatched and uncredited.
        #expect(PomodoroMachine.restore(stale, at: now).machine.isWaiting)
        #expect(PomodoroMachine.restore(stale, at: now).machine.completedFocusPhases == 0)
    }

    @Test func rebootKeepsAPausedRunPausedWithItsFrozenTime() throws {
        let snap = try saved(checkpointAt: 0.5, pause: true)
        let now = reading(boot: 10, wall: 50_000, id: "B")
        let out = PomodoroMachine.restore(snap, at: now)
        #expect(out.events.isEmpty)
        #expect(out.machine.state == .paused(.focus, remaining: .milliseconds(1500)))
        #expect(!out.machine.isBlocking(at: now))
        let resumed = try out.machine.resume(at: now).machine
        #expect(resumed.nextDeadline == BootTime(seconds: 11.5))
        let strict = PomodoroMachine.restore(try saved(quick(strict: true), checkpointAt: 0.5, pause: true), at: now)
        #expect(strict.machine.isBlocking(at: now))
    }

    @Test func rebootKeepsAWaitingRunWaiting() throws {
        let snap = try saved(quick(manual: true), checkpointAt: 2.5)
        let out = PomodoroMachine.restore(snap, at: reading(boot: 10, wall: 9_999, id: "B"))
        #expect(out.events.isEmpty)
        #expect(out.machine.state == .waiting(next: .shortBreak))
        #expect(try out.machine.next(at: reading(boot: 10, wall: 9_999, id: "B")).machine.nextDeadline == BootTime(seconds: 11))
    }

    @Test func restoredRunKeepsItsCountsAndStartTime() throws {
        let snap = try saved(checkpointAt: 9)  // focus 3, started at 8
        let out = PomodoroMachine.restore(snap, at: reading(boot: 1, wall: 9.5, id: "B"))
        #expect(out.machine.cycle == 3)
        #expect(out.machine.completedFocusPhases == 2)
        let end = out.machine.advance(to: reading(boot: 1.5, wall: 10, id: "B"))
        // Half a second passed while off, between the checkpoint at 9 and the restore.
        #expect(
            end.events[1]
                == .focusCompleted(
                    cycle: 3, cycles: nil, focused: .milliseconds(1500), startedAt: epoch.addingTimeInterval(8),
                    at: epoch.addingTimeInterval(10)))
    }
}
