import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Catching up missed phase ends")
struct PomodoroCatchUpTests {
    @Test func severalPhasesInOneAdvance() throws {
        let out = try started().advance(to: at(16))
        #expect(
            out.log == [
                "end focus 1 completed 2s", "focused 1 2s", "start short-break 1 1s",
                "end short-break 1 completed 1s", "start focus 2 2s",
                "end focus 2 completed 2s", "focused 2 2s", "start long-break 2 3s",
                "end long-break 2 completed 3s", "start focus 3 2s",
                "end focus 3 completed 2s", "focused 3 2s", "start short-break 3 1s",
                "end short-break 3 completed 1s", "start focus 4 2s",
                "end focus 4 completed 2s", "focused 4 2s", "start long-break 4 3s",
                "end long-break 4 completed 3s", "start focus 5 2s",
            ])
        #expect(out.machine.completedFocusPhases == 4)
        #expect(out.machine.nextDeadline == BootTime(seconds: 18))
        #expect(out.machine.isBlocking(at: at(16)))
    }

    @Test func caughtUpEventsCarryTheTimesTheyReallyHappened() throws {
        let out = try started().advance(to: at(16))
        let completions = out.events.compactMap { event -> (Date, Date)? in
            if case .focusCompleted(_, _, _, let startedAt, let at) = event { return (startedAt, at) }
            return nil
        }
        #expect(completions.map(\.0) == [0, 3, 8, 11].map { epoch.addingTimeInterval($0) })
        #expect(completions.map(\.1) == [2, 5, 10, 13].map { epoch.addingTimeInterval($0) })
    }

    @Test func eachMissedPhaseIsCountedOnce() throws {
        let m = try started()
        let once = m.advance(to: at(16))
        #expect(once.machine.advance(to: at(16)).events.isEmpty)
        let first = m.advance(to: at(7))
        let second = first.machine.advance(to: at(16))
        #expect(first.events + second.events == once.events)
        #expect(second.machine.state == once.machine.state)
        #expect(second.machine.completedFocusPhases == 4)
    }

    @Test func tenHoursFollowedByTheDaemonWithTheDefaultConfiguration() throws {
        var m = try PomodoroMachine.start(PomodoroConfig(), at: at(0)).machine
        // A round is 4 × 25 + 3 × 5 + 15 = 130 minutes; 600 minutes = 4 rounds + F S F S, and
        // focus 19 runs from 580 to 605 minutes.
        var events: [PomodoroEvent] = []
        while let deadline = m.nextDeadline, deadline <= BootTime(seconds: 600 * 60) {
            let out = m.advance(to: at(ns: deadline.nanoseconds))
            events += out.events
            m = out.machine
        }
        #expect(m.completedFocusPhases == 18)
        #expect(m.cycle == 19)
        #expect(m.state == .running(.focus, deadline: BootTime(seconds: 605 * 60)))
        #expect(events.filter { if case .focusCompleted = $0 { true } else { false } }.count == 18)
        let longBreaks = events.filter {
            if case .phaseStarted(.longBreak, _, _, _, _, _) = $0 { true } else { false }
        }
        #expect(longBreaks.count == 4)
    }

    @Test func aLongSuspendIsNotCreditedAndTheRunWaits() throws {
        // The daemon checkpointed ten minutes into the first focus phase, then the machine
        // slept for ten hours: the phase end was missed by far more than the grace.
        let m = try PomodoroMachine.start(PomodoroConfig(), at: at(0)).machine.checkpoint(at: at(600)).machine
        let out = m.advance(to: at(600 * 60))
        #expect(out.log == ["end focus 1 interrupted 600s", "wait short-break 1"])
        #expect(out.events.first?.at == epoch.addingTimeInterval(25 * 60))
        #expect(out.machine.completedFocusPhases == 0)
        #expect(out.machine.state == .waiting(next: .shortBreak))
        #expect(out.machine.nextDeadline == nil)
        #expect(!out.machine.isBlocking(at: at(600 * 60)))
        #expect(out.machine.advance(to: at(700 * 60)).events.isEmpty)
        // `next` carries on from there, with cycles counted as before.
        let resumed = try out.machine.next(at: at(600 * 60 + 5))
        #expect(resumed.log == ["start short-break 1 300s"])
    }

    @Test func aMissedLastFocusFinishesTheRunWithoutCreditingIt() throws {
        let out = try started(quick(cycles: 1)).advance(to: at(500))
        #expect(out.log == ["end focus 1 interrupted 0s", "finish completed 0"])
        #expect(out.machine.state == .finished(.completed))
    }

    @Test func theGraceIsInclusive() throws {
        // Focus 1 ends at 2: noticed 60 s late it still counts, a nanosecond later it does not.
        let onTime = try started().advance(to: at(62))
        #expect(onTime.log.prefix(2) == ["end focus 1 completed 2s", "focused 1 2s"])
        let late = try started().advance(to: at(ns: 62_000_000_001))
        #expect(late.log == ["end focus 1 interrupted 0s", "wait short-break 1"])
    }

    @Test func aMissedBreakEndAlsoWaits() throws {
        let inBreak = try started().advance(to: at(2.5)).machine
        let out = inBreak.advance(to: at(3600))
        #expect(out.log == ["end short-break 1 interrupted 500000000ns", "wait focus 2"])
        #expect(!out.machine.isBlocking(at: at(3600)))
        #expect(try out.machine.next(at: at(3600)).machine.isBlocking(at: at(3600)))
    }

    @Test func catchUpStopsWhenTheRunFinishes() throws {
        let out = try started(quick(cycles: 3)).advance(to: at(30))
        #expect(out.machine.state == .finished(.completed))
        #expect(out.machine.completedFocusPhases == 3)
        #expect(out.log.last == "finish completed 3")
        #expect(out.events.last?.at == epoch.addingTimeInterval(10))
    }

    @Test func catchUpStopsAtTheFirstWaitInManualMode() throws {
        let out = try started(quick(manual: true)).advance(to: at(30))
        #expect(out.log == ["end focus 1 completed 2s", "focused 1 2s", "wait short-break 1"])
    }

    @Test func isBlockingLooksAtTheCaughtUpState() throws {
        let m = try started()
        #expect(m.isBlocking(at: at(1.9)))
        #expect(!m.isBlocking(at: at(2)))
        #expect(m.isBlocking(at: at(3)))
        #expect(!m.isBlocking(at: at(7)))
    }

    @Test func everyOperationRefreshesTheCheckpoint() throws {
        let m = try started()
        #expect(m.lastCheckpoint == PomodoroCheckpoint(wall: epoch, boot: BootTime(seconds: 0), bootID: "A", remaining: .seconds(2)))
        let c = m.checkpoint(at: at(2.5)).machine.lastCheckpoint
        #expect(
            c
                == PomodoroCheckpoint(
                    wall: epoch.addingTimeInterval(2.5), boot: BootTime(seconds: 2.5), bootID: "A", remaining: .milliseconds(500)))
        let paused = try m.pause(at: at(0.5)).machine
        #expect(paused.checkpoint(at: at(9)).machine.lastCheckpoint.remaining == .milliseconds(1500))
    }
}
