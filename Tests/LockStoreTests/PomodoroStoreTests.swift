import Foundation
import LockCore
import LockProtocol
import LockStore
import TestSupport
import Testing

@Suite("The [pomodoro] section of simplylockd.toml and the focus history")
struct PomodoroStoreTests {
    func load(_ text: String) throws -> DaemonConfiguration {
        let scratch = try Scratch()
        try scratch.write("c.toml", text)
        return try DaemonConfiguration.load(scratch.path + "/c.toml").get()
    }

    /// The problem a file is refused with, without its directory.
    func problem(_ text: String) throws -> String? {
        do {
            _ = try load(text)
            return nil
        } catch let problem as FileProblem {
            return problem.description.replacing(#/^.*\/c\.toml/#, with: "c.toml")
        }
    }

    @Test func defaultsAndOverrides() throws {
        #expect(try load("log_level = \"info\"\n").pomodoro == PomodoroConfig())
        let configuration = try load(
            """
            log_level = "info"

            [pomodoro]
            focus = "50m"
            short_break = "10m"
            long_break = "30m"
            long_every = 3
            cycles = 6
            manual = true
            """)
        #expect(
            configuration.pomodoro
                == PomodoroConfig(
                    focus: .seconds(3000), shortBreak: .seconds(600), longBreak: .seconds(1800),
                    longEvery: 3, cycles: 6, manual: true))
        #expect(try load("[pomodoro]\nfocus = \"1s\"\n").pomodoro.focus == .seconds(1))
    }

    @Test func badValuesAreReportedWithFileLineAndField() throws {
        #expect(
            try problem("[pomodoro]\nfocus = \"0m\"\n") == "c.toml:2: pomodoro.focus: \"0m\" is not a duration: it must be longer than zero"
        )
        #expect(
            try problem("[pomodoro]\nshort_break = \"-5m\"\n")?.hasPrefix("c.toml:2: pomodoro.short_break: \"-5m\" is not a duration")
                == true)
        #expect(
            try problem("# mine\n[pomodoro]\nfocus = \"25m\"\nlong_break = \"30h\"\n")
                == "c.toml:4: pomodoro.long_break: 30h is too long (at most 12h)")
        #expect(try problem("[pomodoro]\n\nlong_every = 0\n") == "c.toml:3: pomodoro.long_every: 0 must be at least 1")
        #expect(try problem("[pomodoro]\ncycles = 0\n") == "c.toml:2: pomodoro.cycles: 0 must be at least 1")
        #expect(try problem("[pomodoro]\nmanual = \"yes\"\n") == "c.toml:2: pomodoro.manual: must be true or false")
        #expect(try problem("[pomodoro]\nfocus = 25\n") == "c.toml:2: pomodoro.focus: must be a string")
        #expect(try problem("[pomodoro]\nfokus = \"25m\"\n")?.hasPrefix("c.toml:2: pomodoro.fokus: unknown field") == true)
        #expect(try problem("pomodoro = 3\n") == "c.toml:1: pomodoro: must be a table ([pomodoro])")
    }

    @Test func completedFocusPhasesAreRecordedOnceWithTheState() throws {
        let store = try StateStore()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = FocusRecord(
            run: "r1", profile: "news", cycle: 1, cycles: 4, startedAt: start,
            endedAt: start.addingTimeInterval(1500), focused: .seconds(1500))
        let second = FocusRecord(
            run: "r1", profile: "news", cycle: 2, cycles: 4, startedAt: start.addingTimeInterval(1800),
            endedAt: start.addingTimeInterval(3300), focused: .seconds(1200))
        try store.savePomodoro(["state": 1], forKey: "pomodoro", completed: [first])
        try store.savePomodoro(["state": 2], forKey: "pomodoro", completed: [first, second])
        #expect(try store.value([String: Int].self, forKey: "pomodoro") == ["state": 2])
        let history = try store.focusHistory(limit: 10)
        #expect(history.records == [second, first])
        #expect(history.count == 2 && history.focused == .seconds(2700))
        #expect(try store.focusHistory(limit: 1).records == [second])
        try store.savePomodoro(Optional<[String: Int]>.none, forKey: "pomodoro", completed: [])
        #expect(try store.value([String: Int].self, forKey: "pomodoro") == nil)
        #expect(try store.focusHistory(limit: 10).count == 2)
    }
}
