import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Status")
struct PomodoroStatusTests {
    @Test func runningFocusWithTheDefaultConfiguration() throws {
        let m = try PomodoroMachine.start(PomodoroConfig(), at: at(0)).machine
        let s = m.status(at: at(750))
        #expect(s.phase == .focus)
        #expect(s.cycle == 1)
        #expect(s.cycles == nil)
        #expect(s.remaining == .seconds(750))
        #expect(s.remainingSeconds == 750)
        #expect(s.endsAt == epoch.addingTimeInterval(1500))
        #expect(!s.isPaused)
        #expect(s.isBlocking)
        #expect(s.next == .phase(.shortBreak, duration: .seconds(300)))
        #expect(s.description == "focus, cycle 1, 12m30s left; next: short break 5m")
    }

    @Test func longBreakAndFinishAreAnnounced() throws {
        let m = try PomodoroMachine.start(PomodoroConfig(cycles: 5), at: at(0)).machine
        // Focus 4 runs from 90 to 115 minutes (F S F S F S F).
        let fourth = live(m, until: 100 * 60).status(at: at(100 * 60))
        #expect(fourth.cycleText == "cycle 4 of 5")
        #expect(fourth.description == "focus, cycle 4 of 5, 15m left; next: long break 15m")
        let longBreak = live(m, until: 120 * 60).status(at: at(120 * 60))
        #expect(longBreak.description == "long break, cycle 4 of 5, 10m left; next: focus 25m")
        #expect(!longBreak.isBlocking)
        let last = live(m, until: 130 * 60 + 1).status(at: at(130 * 60 + 1))
        #expect(last.next == .finish)
        #expect(last.description == "focus, cycle 5 of 5, 24m59s left; next: finished")
        let done = live(m, until: 1_000_000).status(at: at(1_000_000))
        #expect(done.next == nil)
        #expect(done.remaining == nil)
        #expect(done.description == "finished (completed), 5 focus phases completed")
    }

    @Test func pausedStatus() throws {
        let m = try started().pause(at: at(ns: 1_000_000_001)).machine
        let s = m.status(at: at(99))
        #expect(s.isPaused)
        #expect(s.endsAt == nil)
        #expect(s.remaining == .nanoseconds(999_999_999))
        #expect(s.remainingSeconds == 1)
        #expect(s.description == "focus (paused), cycle 1, 1s left; next: short break 1s")
    }

    @Test func remainingRoundsUp() throws {
        let m = try started()
        #expect(m.status(at: at(ns: 1)).remainingSeconds == 2)
        #expect(m.status(at: at(ns: 1_999_999_999)).remainingSeconds == 1)
        #expect(m.status(at: at(2)).phase == .shortBreak)
    }

    @Test func finishedWithOneFocusPhase() throws {
        let m = try started(quick(cycles: 1)).advance(to: at(2)).machine
        #expect(m.status(at: at(2)).description == "finished (completed), 1 focus phase completed")
    }

    @Test func waitingAfterAMissedEndSaysWhy() throws {
        let m = try started().advance(to: at(1000)).machine
        #expect(
            m.status(at: at(1000)).description
                == "waiting, cycle 1; next: short break 1s (the last phase ended while the computer was off or asleep; start it with next)")
    }

    @Test func upcomingDescriptions() {
        #expect(PomodoroStatus.Upcoming.phase(.shortBreak, duration: .seconds(300)).description == "short break 5m")
        #expect(PomodoroStatus.Upcoming.phase(.longBreak, duration: .seconds(900)).description == "long break 15m")
        #expect(PomodoroStatus.Upcoming.phase(.focus, duration: .seconds(5400)).description == "focus 1h30m")
        #expect(PomodoroStatus.Upcoming.finish.description == "finished")
    }
}
