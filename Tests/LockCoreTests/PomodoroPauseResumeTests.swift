import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Pause and resume")
struct PomodoroPauseResumeTests {
    @Test func pauseFreezesTheRemainingTimeAndLiftsTheBlock() throws {
        let out = try started().pause(at: at(0.5))
        #expect(out.log == ["pause focus 1 1500000000ns"])
        let m = out.machine
        #expect(m.state == .paused(.focus, remaining: .milliseconds(1500)))
        #expect(m.isPaused)
        #expect(m.nextDeadline == nil)
        #expect(!m.isBlocking(at: at(0.5)))
        // Time passing while paused changes nothing.
        #expect(m.advance(to: at(10_000)).events.isEmpty)
        #expect(m.advance(to: at(10_000)).machine.state == m.state)
    }

    @Test func resumeContinuesWithTheFrozenTime() throws {
        let paused = try started().pause(at: at(0.5)).machine
        let out = try paused.resume(at: at(100))
        #expect(out.log == ["resume focus 1"])
        #expect(
            out.events.last
                == .resumed(
                    phase: .focus, cycle: 1, cycles: nil, endsAt: epoch.addingTimeInterval(101.5), at: epoch.addingTimeInterval(100)))
        let m = out.machine
        #expect(m.nextDeadline == BootTime(seconds: 101.5))
        #expect(m.isBlocking(at: at(100)))
        let end = m.advance(to: at(101.5))
        // Paused time is not focus time.
        #expect(end.log == ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s"])
        #expect(end.machine.nextDeadline == BootTime(seconds: 102.5))
    }

    @Test func pauseOneNanosecondBeforeThePhaseEnds() throws {
        let out = try started().pause(at: at(ns: 1_999_999_999))
        #expect(out.log == ["pause focus 1 1ns"])
        #expect(out.machine.state == .paused(.focus, remaining: .nanoseconds(1)))
        #expect(out.machine.status(at: at(5)).remainingSeconds == 1)
        let resumed = try out.machine.resume(at: at(ns: 50_000_000_000)).machine
        #expect(resumed.nextDeadline == BootTime(nanoseconds: 50_000_000_001))
        #expect(resumed.advance(to: at(ns: 50_000_000_000)).events.isEmpty)
        #expect(resumed.isBlocking(at: at(ns: 50_000_000_000)))
        let end = resumed.advance(to: at(ns: 50_000_000_001))
        #expect(end.log == ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s"])
        #expect(!end.machine.isBlocking(at: at(ns: 50_000_000_001)))
    }

    @Test func pauseExactlyAtThePhaseEndPausesTheNextPhase() throws {
        let out = try started().pause(at: at(2))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s", "pause short-break 1 1s"])
        #expect(out.machine.state == .paused(.shortBreak, remaining: .seconds(1)))
    }

    @Test func lateOperationsActOnThePhaseThatIsReallyCurrent() throws {
        // The daemon has not processed the focus end yet when the pause arrives.
        let out = try started().pause(at: at(2.25))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s", "pause short-break 1 750000000ns"])
    }

    @Test func resumeExactlyAtTheEdgeOfTheFrozenTime() throws {
        let paused = try started().pause(at: at(1)).machine
        let resumed = try paused.resume(at: at(5)).machine
        #expect(resumed.advance(to: at(ns: 5_999_999_999)).events.isEmpty)
        let repaused = try resumed.pause(at: at(ns: 5_999_999_999))
        #expect(repaused.machine.state == .paused(.focus, remaining: .nanoseconds(1)))
        let out = try resumed.pause(at: at(6))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s", "pause short-break 1 1s"])
    }

    @Test func pauseAndResumeInABreak() throws {
        let inBreak = try started().advance(to: at(2.5)).machine
        let paused = try inBreak.pause(at: at(2.75)).machine
        #expect(paused.state == .paused(.shortBreak, remaining: .milliseconds(250)))
        #expect(!paused.isBlocking(at: at(3)))
        let resumed = try paused.resume(at: at(10))
        #expect(resumed.machine.nextDeadline == BootTime(seconds: 10.25))
        #expect(resumed.machine.advance(to: at(10.25)).log == ["end short-break 1 completed 1s", "start focus 2 2s"])
    }

    @Test func repeatedPausesCountOnlyRunningTime() throws {
        var m = try started()
        m = try m.pause(at: at(0.5)).machine
        m = try m.resume(at: at(10)).machine
        m = try m.pause(at: at(10.5)).machine
        m = try m.resume(at: at(20)).machine
        #expect(m.nextDeadline == BootTime(seconds: 21))
        let skipped = try m.skip(at: at(20.25))
        #expect(skipped.log.first == "end focus 1 skipped 1250000000ns")
    }

    @Test func pausingWhilePausedIsRefused() throws {
        let paused = try started().pause(at: at(1)).machine
        #expect(throws: PomodoroRefusal.alreadyPaused(.focus)) { try paused.pause(at: at(1.5)) }
        #expect(PomodoroRefusal.alreadyPaused(.focus).description == "the focus is already paused; use resume to continue it")
    }

    @Test func resumingWhileRunningIsRefused() throws {
        let m = try started()
        #expect(throws: PomodoroRefusal.notPaused(.focus)) { try m.resume(at: at(1)) }
        // Also after an edge that was not processed yet: the break is running.
        #expect(throws: PomodoroRefusal.notPaused(.shortBreak)) { try m.resume(at: at(2.5)) }
        #expect(PomodoroRefusal.notPaused(.shortBreak).description == "the short break is running, not paused")
    }

    @Test func refusalsLeaveTheCheckpointAlone() throws {
        let m = try started().pause(at: at(1)).machine
        let before = m.lastCheckpoint
        _ = try? m.pause(at: at(5))
        #expect(m.lastCheckpoint == before)
    }
}
