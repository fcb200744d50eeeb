import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Phase transitions")
struct PomodoroTransitionTests {
    @Test func startBeginsTheFirstFocusPhase() throws {
        let out = try PomodoroMachine.start(quick, at: at(10))
        #expect(out.log == ["start focus 1 2s"])
        #expect(
            out.events == [
                .phaseStarted(
                    phase: .focus, cycle: 1, cycles: nil, duration: .seconds(2),
                    at: epoch.addingTimeInterval(10), endsAt: epoch.addingTimeInterval(12))
            ])
        let m = out.machine
        #expect(m.state == .running(.focus, deadline: BootTime(seconds: 12)))
        #expect(m.cycle == 1)
        #expect(m.nextDeadline == BootTime(seconds: 12))
        #expect(m.isBlocking(at: at(10)))
        #expect(m.isBlocking(at: at(11.999)))
        #expect(m.phaseStartedAt == epoch.addingTimeInterval(10))
    }

    @Test func nothingHappensBeforeTheDeadline() throws {
        let m = try started()
        let out = m.advance(to: at(ns: 1_999_999_999))
        #expect(out.events.isEmpty)
        #expect(out.machine.state == m.state)
    }

    @Test func everyNaturalTransition() throws {
        var m = try started()
        var logs: [[String]] = []
        var blocking: [Bool] = []
        for t in [2.0, 3, 5, 8, 10] {
            let out = m.advance(to: at(t))
            m = out.machine
            logs.append(out.log)
            blocking.append(m.isBlocking(at: at(t)))
            #expect(m.nextDeadline != nil)
        }
        #expect(
            logs == [
                ["end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s"],
                ["end short-break 1 completed 1s", "start focus 2 2s"],
                ["end focus 2 completed 2s", "focused 2 2s", "start long-break 2 3s"],
                ["end long-break 2 completed 3s", "start focus 3 2s"],
                ["end focus 3 completed 2s", "focused 3 2s", "start short-break 3 1s"],
            ])
        #expect(blocking == [false, true, false, true, false])
        #expect(m.completedFocusPhases == 3)
        #expect(m.nextDeadline == BootTime(seconds: 11))
    }

    @Test func breakEventsCarryTimes() throws {
        let out = try started().advance(to: at(2))
        #expect(
            out.events == [
                .phaseEnded(
                    phase: .focus, cycle: 1, cycles: nil, reason: .completed, elapsed: .seconds(2), at: epoch.addingTimeInterval(2)),
                .focusCompleted(cycle: 1, cycles: nil, focused: .seconds(2), startedAt: epoch, at: epoch.addingTimeInterval(2)),
                .phaseStarted(
                    phase: .shortBreak, cycle: 1, cycles: nil, duration: .seconds(1),
                    at: epoch.addingTimeInterval(2), endsAt: epoch.addingTimeInterval(3)),
            ])
    }

    /// Follows `focusPhases` focus phases by waking exactly at each deadline, the way the daemon
    /// does, and returns the breaks in order.
    func breaks(_ config: PomodoroConfig, focusPhases: Int) throws -> [PomodoroPhase] {
        var m = try PomodoroMachine.start(config, at: at(0)).machine
        var result: [PomodoroPhase] = []
        while m.cycle <= focusPhases, let deadline = m.nextDeadline {
            m = m.advance(to: ClockReading(wall: epoch, boot: deadline, bootID: "A")).machine
            if let phase = m.phase, phase.isBreak, m.cycle <= focusPhases { result.append(phase) }
        }
        return result
    }

    @Test func defaultCadenceHasALongBreakAfterEveryFourthFocus() throws {
        let s = PomodoroPhase.shortBreak, l = PomodoroPhase.longBreak
        #expect(try breaks(PomodoroConfig(), focusPhases: 8) == [s, s, s, l, s, s, s, l])
    }

    @Test(arguments: [1, 2, 3, 5])
    func longEveryCadence(longEvery: Int) throws {
        var config = quick
        config.longEvery = longEvery
        let got = try breaks(config, focusPhases: 10)
        #expect(got == (1...10).map { $0 % longEvery == 0 ? .longBreak : .shortBreak })
    }

    @Test(arguments: [1, 2, 3, 5])
    func cyclesFinishRightAfterTheLastFocus(cycles: Int) throws {
        var m = try started(quick(cycles: cycles))
        var all: [PomodoroEvent] = []
        while let deadline = m.nextDeadline {
            let out = m.advance(to: ClockReading(wall: epoch, boot: deadline, bootID: "A"))
            all += out.events
            m = out.machine
        }
        let log = summary(all)
        #expect(m.state == .finished(.completed))
        #expect(m.completedFocusPhases == cycles)
        #expect(m.cycle == cycles)
        #expect(log.suffix(3) == ["end focus \(cycles) completed 2s", "focused \(cycles) 2s", "finish completed \(cycles)"])
        #expect(log.filter { $0.hasPrefix("start focus") }.count == cycles - 1)
        #expect(log.filter { $0.hasPrefix("start") && $0.contains("break") }.count == cycles - 1)
        #expect(m.nextDeadline == nil)
        #expect(!m.isBlocking(at: at(1000)))
    }

    @Test func cycleCountsAppearInEvents() throws {
        let out = try PomodoroMachine.start(quick(cycles: 3), at: at(0))
        guard case .phaseStarted(_, let cycle, let cycles, _, _, _) = out.events[0] else {
            Issue.record("expected phaseStarted")
            return
        }
        #expect(cycle == 1)
        #expect(cycles == 3)
    }

    @Test func finishedRunRefusesEverything() throws {
        let m = try started(quick(cycles: 1)).advance(to: at(2)).machine
        #expect(m.isFinished)
        #expect(throws: PomodoroRefusal.finished) { try m.pause(at: at(3)) }
        #expect(throws: PomodoroRefusal.finished) { try m.resume(at: at(3)) }
        #expect(throws: PomodoroRefusal.finished) { try m.skip(at: at(3)) }
        #expect(throws: PomodoroRefusal.finished) { try m.stop(at: at(3)) }
        #expect(throws: PomodoroRefusal.finished) { try m.next(at: at(3)) }
        #expect(m.advance(to: at(1000)).events.isEmpty)
    }
}
