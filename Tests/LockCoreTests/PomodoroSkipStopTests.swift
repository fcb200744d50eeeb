import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Skip and stop")
struct PomodoroSkipStopTests {
    @Test func skipAFocusPhase() throws {
        let out = try started().skip(at: at(0.5))
        #expect(out.log == ["end focus 1 skipped 500000000ns", "start short-break 1 1s"])
        #expect(out.machine.completedFocusPhases == 0)
        #expect(out.machine.nextDeadline == BootTime(seconds: 1.5))
        #expect(!out.machine.isBlocking(at: at(0.5)))
    }

    /// (time to skip at, phase expected to be skipped, log expected)
    static let skipCases: [(Double, String, [String])] = [
        (1, "focus 1", ["end focus 1 skipped 1s", "start short-break 1 1s"]),
        (
            2.5, "short-break 1",
            [
                "end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s",
                "end short-break 1 skipped 500000000ns", "start focus 2 2s",
            ]
        ),
        (6, "long-break 2", ["end long-break 2 skipped 1s", "start focus 3 2s"]),
    ]

    @Test(arguments: 0..<3)
    func skipInEachPhase(index: Int) throws {
        let (t, expectedPhase, expectedLog) = Self.skipCases[index]
        var m = try started()
        if t > 5 { m = m.advance(to: at(5)).machine }  // into the long break
        #expect(phaseText(m.advance(to: at(t)).machine) == expectedPhase)
        let out = try m.skip(at: at(t))
        #expect(out.log == expectedLog)
        // The next phase starts at the skip, with its full length.
        let length: Double = out.machine.phase == .focus ? 2 : 1
        #expect(out.machine.nextDeadline == BootTime(seconds: t + length))
    }

    @Test func skipAPausedPhase() throws {
        let paused = try started().pause(at: at(0.25)).machine
        let out = try paused.skip(at: at(50))
        #expect(out.log == ["end focus 1 skipped 250000000ns", "start short-break 1 1s"])
        #expect(out.machine.nextDeadline == BootTime(seconds: 51))
    }

    @Test func skippingTheLastFocusFinishesTheRun() throws {
        let m = try started(quick(cycles: 2)).advance(to: at(3.5)).machine
        #expect(phaseText(m) == "focus 2")
        let out = try m.skip(at: at(4))
        #expect(out.log == ["end focus 2 skipped 1s", "finish completed 1"])
        #expect(out.machine.state == .finished(.completed))
    }

    @Test func skippedFocusStillCountsAsACycle() throws {
        let m = try started().skip(at: at(0)).machine  // short break 0–1
        let f2 = m.advance(to: at(1)).machine
        #expect(phaseText(f2) == "focus 2")
        #expect(f2.advance(to: at(3)).log == ["end focus 2 completed 2s", "focused 2 2s", "start long-break 2 3s"])
    }

    @Test func stopDuringFocus() throws {
        let out = try started().stop(at: at(1.5))
        #expect(out.log == ["end focus 1 stopped 1500000000ns", "finish stopped 0"])
        #expect(out.machine.state == .finished(.stopped))
        #expect(out.machine.nextDeadline == nil)
        #expect(!out.machine.isBlocking(at: at(1.5)))
        #expect(out.machine.status(at: at(2)).description == "finished (stopped), 0 focus phases completed")
    }

    @Test func stopDuringABreak() throws {
        let out = try started().stop(at: at(2.5))
        #expect(
            out.log == [
                "end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s",
                "end short-break 1 stopped 500000000ns", "finish stopped 1",
            ])
    }

    @Test func stopWhilePaused() throws {
        let paused = try started().pause(at: at(0.5)).machine
        let out = try paused.stop(at: at(99))
        #expect(out.log == ["end focus 1 stopped 500000000ns", "finish stopped 0"])
    }

    @Test func stopWhileWaiting() throws {
        let waiting = try started(quick(manual: true)).advance(to: at(2)).machine
        #expect(waiting.isWaiting)
        let out = try waiting.stop(at: at(3))
        #expect(out.log == ["finish stopped 1"])
        #expect(out.events.last == .runFinished(reason: .stopped, completedFocusPhases: 1, at: epoch.addingTimeInterval(3)))
    }
}
