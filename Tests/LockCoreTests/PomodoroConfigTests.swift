import Foundation
import LockCore
import Testing

@Suite("Pomodoro: Configuration")
struct PomodoroConfigTests {
    func message(_ config: PomodoroConfig) -> String? {
        do {
            try config.validate()
            return nil
        } catch {
            return error.description
        }
    }

    @Test func defaults() throws {
        let c = PomodoroConfig()
        #expect(c.focus == .seconds(25 * 60))
        #expect(c.shortBreak == .seconds(5 * 60))
        #expect(c.longBreak == .seconds(15 * 60))
        #expect(c.longEvery == 4)
        #expect(c.cycles == nil)
        #expect(c.manual == false)
        #expect(c.strict == false)
        try c.validate()
    }

    @Test func zeroAndNegativeDurationsAreRefused() {
        #expect(message(PomodoroConfig(focus: .zero)) == "focus: 0s must be at least 1s")
        #expect(message(PomodoroConfig(shortBreak: .seconds(-5))) == "short-break: -5s must be at least 1s")
        #expect(message(PomodoroConfig(longBreak: .seconds(-90))) == "long-break: -1m30s must be at least 1s")
        #expect(message(PomodoroConfig(focus: .milliseconds(500))) == "focus: 0.5s must be at least 1s")
        #expect(throws: PomodoroConfigError.phaseTooShort(.focus, .zero)) { try PomodoroConfig(focus: .zero).validate() }
    }

    @Test func absurdlyLongPhasesAreRefused() {
        #expect(message(PomodoroConfig(longBreak: .seconds(30 * 3600))) == "long-break: 30h is too long (at most 12h)")
        #expect(message(PomodoroConfig(focus: .seconds(12 * 3600 + 1))) == "focus: 12h1s is too long (at most 12h)")
        #expect(message(PomodoroConfig(shortBreak: .seconds(13 * 3600 + 90))) == "short-break: 13h1m30s is too long (at most 12h)")
        let error = PomodoroConfigError.phaseTooLong(.longBreak, .seconds(30 * 3600))
        #expect(error.field == "long-break")
    }

    @Test func boundsThemselvesAreAccepted() throws {
        try PomodoroConfig(focus: .seconds(1), shortBreak: .seconds(1), longBreak: .seconds(1)).validate()
        try PomodoroConfig(focus: .seconds(12 * 3600), shortBreak: .seconds(12 * 3600), longBreak: .seconds(12 * 3600)).validate()
        try PomodoroConfig(longEvery: 1, cycles: 1).validate()
    }

    @Test func longEveryAndCyclesMustBePositive() {
        #expect(message(PomodoroConfig(longEvery: 0)) == "long-every: 0 must be at least 1")
        #expect(message(PomodoroConfig(longEvery: -3)) == "long-every: -3 must be at least 1")
        #expect(message(PomodoroConfig(cycles: 0)) == "cycles: 0 must be at least 1")
        #expect(message(PomodoroConfig(cycles: -1)) == "cycles: -1 must be at least 1")
        #expect(PomodoroConfigError.cyclesTooSmall(0).field == "cycles")
    }

    @Test func firstProblemInFieldOrderIsReported() {
        #expect(message(PomodoroConfig(focus: .zero, longBreak: .seconds(99 * 3600), cycles: 0)) == "focus: 0s must be at least 1s")
    }

    @Test func startRefusesAnInvalidConfiguration() {
        #expect(throws: PomodoroConfigError.phaseTooLong(.longBreak, .seconds(30 * 3600))) {
            try PomodoroMachine.start(PomodoroConfig(longBreak: .seconds(30 * 3600)), at: at(0))
        }
        #expect(throws: PomodoroConfigError.longEveryTooSmall(0)) {
            try PomodoroMachine.start(PomodoroConfig(longEvery: 0), at: at(0))
        }
    }

    @Test func phaseAfter() {
        let c = PomodoroConfig(longEvery: 3, cycles: 4)
        #expect(c.phase(after: .focus, cycle: 1) == .shortBreak)
        #expect(c.phase(after: .focus, cycle: 3) == .longBreak)
        #expect(c.phase(after: .focus, cycle: 4) == nil)
        #expect(c.phase(after: .shortBreak, cycle: 1) == .focus)
        #expect(c.phase(after: .longBreak, cycle: 3) == .focus)
    }
}
