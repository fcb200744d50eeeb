import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Manual mode")
struct PomodoroManualTests {
    let manual = quick(manual: true)

    @Test func aPhaseWhoseTimeIsUpWaitsForNext() throws {
        let out = try started(manual).advance(to: at(2))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "wait short-break 1"])
        let m = out.machine
        #expect(m.state == .waiting(next: .shortBreak))
        #expect(m.nextDeadline == nil)
        #expect(!m.isBlocking(at: at(2)))
        #expect(m.advance(to: at(5000)).events.isEmpty)
        #expect(m.status(at: at(5000)).description == "waiting, cycle 1; next: short break 1s (start it with next)")
    }

    @Test func nextStartsTheWaitingPhaseAtNow() throws {
        var m = try started(manual).advance(to: at(2)).machine
        var out = try m.next(at: at(100))
        #expect(out.log == ["start short-break 1 1s"])
        m = out.machine
        #expect(m.nextDeadline == BootTime(seconds: 101))
        out = m.advance(to: at(101))
        #expect(out.log == ["end short-break 1 completed 1s", "wait focus 2"])
        m = out.machine
        #expect(m.cycle == 1)
        out = try m.next(at: at(200))
        #expect(out.log == ["start focus 2 2s"])
        #expect(out.machine.isBlocking(at: at(200)))
        #expect(out.machine.advance(to: at(202)).log == ["end focus 2 completed 2s", "focused 2 2s", "wait long-break 2"])
    }

    @Test func nextWhileAPhaseIsRunningOrPausedIsRefused() throws {
        let m = try started(manual)
        #expect(throws: PomodoroRefusal.phaseInProgress(.focus, paused: false)) { try m.next(at: at(1)) }
        let paused = try m.pause(at: at(1)).machine
        #expect(throws: PomodoroRefusal.phaseInProgress(.focus, paused: true)) { try paused.next(at: at(1)) }
        let automatic = try started()
        #expect(throws: PomodoroRefusal.phaseInProgress(.shortBreak, paused: false)) { try automatic.next(at: at(2.5)) }
        #expect(
            PomodoroRefusal.phaseInProgress(.focus, paused: false).description
                == "the focus is still running; next only starts a phase once the previous one is over (skip ends it early)")
    }

    @Test func pauseResumeAndSkipWhileWaitingAreRefused() throws {
        let waiting = try started(manual).advance(to: at(2)).machine
        #expect(throws: PomodoroRefusal.waitingForNext(.shortBreak)) { try waiting.pause(at: at(3)) }
        #expect(throws: PomodoroRefusal.waitingForNext(.shortBreak)) { try waiting.resume(at: at(3)) }
        #expect(throws: PomodoroRefusal.waitingForNext(.shortBreak)) { try waiting.skip(at: at(3)) }
        #expect(
            PomodoroRefusal.waitingForNext(.shortBreak).description
                == "no phase is running: the short break is waiting for next to start it")
    }

    @Test func skipInManualModeStartsTheNextPhaseRightAway() throws {
        let out = try started(manual).skip(at: at(1))
        #expect(out.log == ["end focus 1 skipped 1s", "start short-break 1 1s"])
        #expect(out.machine.nextDeadline == BootTime(seconds: 2))
    }

    @Test func theLastFocusFinishesWithoutWaiting() throws {
        let out = try started(quick(cycles: 1, manual: true)).advance(to: at(2))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "finish completed 1"])
    }
}
