import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Strict mode")
struct PomodoroStrictTests {
    let strict = quick(strict: true)

    @Test func skipAndStopAreRefusedDuringFocus() throws {
        let m = try started(strict)
        #expect(throws: PomodoroRefusal.strictSkip) { try m.skip(at: at(1)) }
        #expect(throws: PomodoroRefusal.strictStop) { try m.stop(at: at(1)) }
        #expect(PomodoroRefusal.strictSkip.description == "strict mode: a focus phase cannot be skipped")
        #expect(
            PomodoroRefusal.strictStop.description
                == "strict mode: the run cannot be stopped during a focus phase (it can be stopped in a break)")
        #expect(PomodoroRefusal.strictSkip.isStrict)
        #expect(PomodoroRefusal.strictStop.code == "strict")
        #expect(!PomodoroRefusal.finished.isStrict)
    }

    @Test func skipAndStopAreRefusedDuringAPausedFocus() throws {
        let paused = try started(strict).pause(at: at(1)).machine
        #expect(throws: PomodoroRefusal.strictSkip) { try paused.skip(at: at(2)) }
        #expect(throws: PomodoroRefusal.strictStop) { try paused.stop(at: at(2)) }
    }

    @Test func pauseIsAllowedButTheBlockStays() throws {
        let out = try started(strict).pause(at: at(1))
        #expect(out.log == ["pause focus 1 1s"])
        let m = out.machine
        #expect(m.isBlocking(at: at(1)))
        #expect(m.isBlocking(at: at(100_000)))
        #expect(m.nextDeadline == nil)
        #expect(m.status(at: at(5)).description == "focus (paused, still blocking), cycle 1, 1s left; next: short break 1s")
        let resumed = try m.resume(at: at(10)).machine
        #expect(resumed.isBlocking(at: at(10.5)))
        #expect(!resumed.isBlocking(at: at(11)))
    }

    @Test func skipAndStopAreAllowedInBreaks() throws {
        let m = try started(strict)
        let skipped = try m.skip(at: at(2.5))
        #expect(skipped.log.suffix(2) == ["end short-break 1 skipped 500000000ns", "start focus 2 2s"])
        let stopped = try m.stop(at: at(6))  // long break 5–8
        #expect(stopped.log.suffix(2) == ["end long-break 2 stopped 1s", "finish stopped 2"])
        let pausedBreak = try m.pause(at: at(2.5)).machine
        #expect(!pausedBreak.isBlocking(at: at(2.5)))
        #expect(try pausedBreak.stop(at: at(3)).machine.isFinished)
    }

    @Test func strictManualRunCanBeStoppedWhileWaiting() throws {
        let waiting = try started(quick(manual: true, strict: true)).advance(to: at(3)).machine
        #expect(waiting.isWaiting)
        #expect(try waiting.stop(at: at(3)).machine.isFinished)
    }
}
