import Foundation
import LockProtocol
import TestSupport
import Testing

/// The Pomodoro timer through the real daemon and lockctl, with second-scale phases. Waits
/// poll with generous deadlines; nothing asserts how long a phase took.
@Suite("Pomodoro through the real daemon and lockctl")
struct PomodoroTests {
    /// A daemon with a custom profile `focus` that blocks example.com.
    func daemonWithProfile(_ root: TestRoot) throws -> DaemonProcess {
        let daemon = try DaemonProcess(root: root)
        let created = try daemon.lockctl("profiles", "create", "focus", "--domain", "example.com")
        #expect(created.status == 0, "\(created)")
        return daemon
    }

    func blocked(_ root: TestRoot) -> Bool { root.hosts().contains(" example.com") }

    func pomodoro(_ daemon: DaemonProcess) throws -> PomodoroInfo { try daemon.decode(PomodoroInfo.self, "pomodoro", "status") }

    @Test("focus phases block, breaks lift, the run finishes; events and the focus history follow")
    func phasesBlockAndUnblock() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        let recorder = try EventRecorder(daemon: daemon)
        let start = try daemon.lockctl(
            "pomodoro", "start", "--profile", "focus", "--focus", "2s", "--short-break", "3s",
            "--long-break", "3s", "--cycles", "2")
        #expect(start.status == 0, "\(start)")
        #expect(start.stdout.contains("focus, cycle 1 of 2"))
        #expect(blocked(root))
        let status = try daemon.lockctl("pomodoro", "status")
        #expect(
            status.stdout.contains("cycle 1 of 2") && status.stdout.contains("Next:") && status.stdout.contains("short break 3s"),
            "\(status)")
        try waitUntil("the first break to lift the block", timeout: 30) { !blocked(root) }
        try waitUntil("the second focus phase to block again", timeout: 30) { blocked(root) }
        try waitUntil("the run to finish", timeout: 30) { try pomodoro(daemon).state == "finished" }
        #expect(!blocked(root))
        #expect(root.hosts() == "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# user comment\n")

        let history = try daemon.decode(PomodoroHistoryResponse.self, "pomodoro", "history")
        #expect(history.pomodoros == 2)
        #expect(history.entries.map(\.cycle) == [2, 1])
        let sessions = try daemon.decode(HistoryResponse.self, "history").entries
        #expect(sessions.filter { $0.origin == "pomodoro" }.count == 2)
        try waitUntil("the last events to arrive", timeout: 10) { try recorder.pomodoroEvents().last == "runFinished" }
        #expect(
            try recorder.pomodoroEvents() == [
                "phaseStarted", "phaseEnded", "focusCompleted", "phaseStarted", "phaseEnded",
                "phaseStarted", "phaseEnded", "focusCompleted", "runFinished",
            ])
    }

    @Test("pause freezes the remaining time and lifts the block; resume brings both back")
    func pauseAndResume() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "focus", "--focus", "1m").status == 0)
        let pause = try daemon.lockctl("pomodoro", "pause")
        #expect(pause.status == 0, "\(pause)")
        #expect(!blocked(root))
        let frozen = try pomodoro(daemon)
        #expect(frozen.state == "paused")
        let left = try #require(frozen.remainingSeconds)
        usleep(1_500_000)
        #expect(try pomodoro(daemon).remainingSeconds == left)
        #expect(try daemon.lockctl("pomodoro", "pause").status == 5)
        #expect(try daemon.lockctl("pomodoro", "resume").status == 0)
        #expect(blocked(root))
        let running = try pomodoro(daemon)
        #expect(running.state == "running")
        #expect((running.remainingSeconds ?? 0) <= left)
    }

    @Test("strict: focus phases cannot be skipped or stopped (exit 5), pausing keeps the block")
    func strictRefusals() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "focus", "--focus", "1m", "--strict").status == 0)
        for action in ["skip", "stop"] {
            let refused = try daemon.lockctl("pomodoro", action)
            #expect(refused.status == 5, "\(refused)")
            #expect(refused.stderr.contains("strict"))
        }
        let byHand = try daemon.lockctl("stop", "focus")
        #expect(byHand.status == 5)
        #expect(byHand.stderr.contains("lockctl pomodoro stop"))
        #expect(try daemon.lockctl("pomodoro", "pause").status == 0)
        #expect(blocked(root))
        #expect(try pomodoro(daemon).blocking)
    }

    @Test("a daemon restart resumes the same phase with the time it had left")
    func restartResumes() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        #expect(
            try daemon.lockctl("pomodoro", "start", "--profile", "focus", "--focus", "1m", "--short-break", "1m", "--cycles", "3").status
                == 0)
        let before = try #require(try pomodoro(daemon).remainingSeconds)
        try daemon.kill9()
        try daemon.restart()
        let focus = try pomodoro(daemon)
        #expect(focus.phase == "focus" && focus.cycle == 1 && focus.state == "running")
        // The time kept counting; it was neither reset nor lost.
        let left = focus.remainingSeconds ?? 0
        #expect(left > 0 && left <= before, "\(focus)")
        #expect(blocked(root))

        // In a break, after a clean stop: still the break, still lifted.
        #expect(try daemon.lockctl("pomodoro", "skip").status == 0)
        #expect(!blocked(root))
        let breakBefore = try #require(try pomodoro(daemon).remainingSeconds)
        #expect(try daemon.stop() == 0)
        try daemon.restart()
        let inBreak = try pomodoro(daemon)
        #expect(inBreak.phase == "short-break" && inBreak.cycle == 1, "\(inBreak)")
        let breakLeft = inBreak.remainingSeconds ?? 0
        #expect(breakLeft > 0 && breakLeft <= breakBefore, "\(inBreak)")
        #expect(!blocked(root))
    }

    @Test("bad values are refused with the field named (exit 2) and change nothing; a second start is refused (exit 5)")
    func refusals() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        let hostsBefore = root.hosts()
        for (arguments, fragment) in [
            (["--focus", "0m"], "focus"), (["--focus", "-5m"], "focus: -5m"),
            (["--long-break", "30h"], "long-break: 30h is too long (at most 12h)"),
            (["--short-break", "soon"], "short-break"), (["--cycles", "0"], "cycles: 0 must be at least 1"),
            (["--long-every", "0"], "long-every: 0 must be at least 1"),
        ] {
            let result = try daemon.lockctl(["pomodoro", "start", "--profile", "focus"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains(fragment), "\(arguments): \(result)")
        }
        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "ghost").status == 6)
        #expect(try pomodoro(daemon).state == "none")
        #expect(root.hosts() == hostsBefore)
        #expect(try daemon.lockctl("pomodoro", "pause").status == 6)

        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "focus", "--focus", "10m").status == 0)
        let second = try daemon.lockctl("pomodoro", "start", "--profile", "news")
        #expect(second.status == 5)
        #expect(second.stderr.contains("already running"))
        #expect(try pomodoro(daemon).profile == "focus")
        #expect(!root.hosts().contains("news.ycombinator.com"))
    }

    @Test("--manual waits for next at the end of each phase")
    func manualMode() throws {
        let root = try TestRoot()
        let daemon = try daemonWithProfile(root)
        #expect(
            try daemon.lockctl("pomodoro", "start", "--profile", "focus", "--focus", "1s", "--short-break", "1m", "--manual").status == 0)
        try waitUntil("the focus phase to end and wait", timeout: 30) { try pomodoro(daemon).state == "waiting" }
        #expect(!blocked(root))
        #expect(try pomodoro(daemon).next == "short-break")
        let next = try daemon.lockctl("pomodoro", "next")
        #expect(next.status == 0, "\(next)")
        #expect(try pomodoro(daemon).phase == "short-break")
        #expect(try daemon.lockctl("pomodoro", "next").status == 5)
    }

    @Test("defaults from simplylockd.toml; lockctl status shows the run; manual blocks run beside it")
    func defaultsStatusAndUnion() throws {
        let root = try TestRoot()
        try root.write("etc/simplylock/simplylockd.toml", "[pomodoro]\nfocus = \"45m\"\nshort_break = \"7m\"\ncycles = 3\n")
        let daemon = try daemonWithProfile(root)
        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "focus").status == 0)
        let settings = try #require(try pomodoro(daemon).settings)
        #expect(settings.focusSeconds == 2700 && settings.shortBreakSeconds == 420)
        #expect(settings.cycles == 3)
        let status = try daemon.lockctl("status")
        #expect(status.stdout.contains("pomodoro focus: focus, cycle 1 of 3"), "\(status)")
        #expect(status.stdout.contains("pomodoro"))

        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        #expect(blocked(root) && root.hosts().contains("news.ycombinator.com"))
        #expect(try daemon.lockctl("pomodoro", "stop").status == 0)
        #expect(!blocked(root))
        #expect(root.hosts().contains("news.ycombinator.com"))
        #expect(try daemon.decode(StatusResponse.self, "status").notices == [])
    }
}
