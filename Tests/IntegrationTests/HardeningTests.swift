import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// Defects found by outside testing, each kept fixed with the real daemon and lockctl.
@Suite("What is blocked stays blocked: the daemon against its own clocks, files and shutdown")
struct HardeningTests {
    static let faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
    static let faketimeMissing = TestTools.missing {
        access(faketime, R_OK) == 0 ? nil : "libfaketime is not installed (apt-get install faketime)"
    }
    static let unshareMissing = TestTools.missing {
        getuid() == 0 && TestTools.which("unshare") != nil ? nil : "needs root and unshare for a private mount namespace"
    }

    @Test("an events client does not hold up shutdown: every stream ends with a last event within a second")
    func eventStreamsEndAtShutdown() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let output = root.path + "/events.out"
        let follower = try ChildProcess(
            Binaries.lockctl, ["--root", root.path, "events", "--json"],
            environment: ProcessRunner.environment(), stdout: .file(output), stderr: .null)
        try waitUntil("the event stream to start", timeout: 5) {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("hello")
        }
        let start = Date()
        #expect(try daemon.stop() == 0)
        let took = Date().timeIntervalSince(start)
        #expect(took < 2.0, "SIGTERM took \(took) s with an events client connected")
        #expect(follower.wait(timeout: 5) != nil, "lockctl events did not end when the daemon stopped")
        #expect(((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("daemon.stopping"))
        // A new daemon can start at once: the lock and the socket were released.
        try daemon.restart()
        #expect(try daemon.lockctl("status").status == 0)
    }

    @Test(
        "a block started under a faked boot clock never has more time left after a normal restart",
        .enabled(if: faketimeMissing == nil, "\(faketimeMissing ?? "")"))
    func fakedBootClock() throws {
        let root = try TestRoot()
        // Without FAKETIME_DONT_FAKE_MONOTONIC, libfaketime moves CLOCK_BOOTTIME too.
        let faked = ["LD_PRELOAD": Self.faketime, "FAKETIME": "+20000d"]
        let daemon = try DaemonProcess(root: root, environment: faked)
        #expect(try daemon.lockctl("start", "news", "1h", "--strict").status == 0)
        try daemon.stop()
        try daemon.restart()
        let session = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first)
        let remaining = session.remainingSeconds
        #expect(remaining <= 3600 && remaining > 3500, "\(remaining) s left of a 1h block")
        let ends = session.endsAt
        #expect(abs(ends.timeIntervalSinceNow - Double(remaining)) < 60, "ends at \(ends)")
    }

    @Test(
        "a reboot with the clock moved forward keeps a strict block while the clock is not synchronised",
        .enabled(if: faketimeMissing == nil, "\(faketimeMissing ?? "")"))
    func rebootWithTheClockMovedForward() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root, environment: ["SIMPLYLOCK_CLOCK_SYNCHRONISED": "yes"])
        #expect(try daemon.lockctl("start", "news", "2h", "--strict").status == 0)
        try daemon.stop()
        // Another boot, the wall clock a year ahead (moving it by hand unsynchronises it).
        let reboot = [
            "SIMPLYLOCK_BOOT_ID": "another-boot", "SIMPLYLOCK_CLOCK_SYNCHRONISED": "no",
            "LD_PRELOAD": Self.faketime, "FAKETIME": "+365d", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        ]
        try daemon.restart(environment: reboot)
        let sessions = try daemon.decode(StatusResponse.self, "status").sessions
        #expect(sessions.count == 1, "the strict block ended: \(daemon.log().suffix(1500))")
        #expect((sessions.first?.remainingSeconds ?? 0) > 7000)
        #expect(root.hosts().contains(" news.ycombinator.com"))
        #expect(try daemon.lockctl("stop", "news").status == 5)
        // With the clock synchronised, a year really passed: now it has ended.
        try daemon.stop()
        try daemon.restart(environment: [
            "SIMPLYLOCK_BOOT_ID": "another-boot", "SIMPLYLOCK_CLOCK_SYNCHRONISED": "yes",
            "LD_PRELOAD": Self.faketime, "FAKETIME": "+365d", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        ])
        try waitUntil("the block to end once the clock is trusted", timeout: 5) {
            try daemon.decode(StatusResponse.self, "status").sessions.isEmpty
        }
    }

    @Test("one bad key in simplylockd.toml: the others stay in force, and doctor and reload report every problem")
    func configurationProblemsAreAllReported() throws {
        let root = try TestRoot()
        try root.write("etc/simplylock/simplylockd.toml", "max_session = \"2h\"\nlog_levle = \"debug\"\ncheckpoint_interval = \"0s\"\n")
        let daemon = try DaemonProcess(root: root)
        let refused = try daemon.lockctl("start", "news", "3h")
        #expect(refused.status == 2, "a 3h block was allowed under a 2h limit: \(refused)")
        #expect(refused.stderr.contains("2h"))
        let doctor = try daemon.lockctl("doctor", "--json")
        let configuration = try doctor.decode(DoctorReport.self).checks.filter { $0.name == "configuration" }
        for key in ["log_levle", "checkpoint_interval"] {
            #expect(configuration.contains { $0.message.contains(key) }, "doctor does not name \(key): \(configuration)")
        }
        let reload = try daemon.lockctl("reload", "--json")
        #expect(reload.status == 1, "a reload that reports problems exits 1: \(reload)")
        let problems = try reload.decode(ReloadResponse.self).problems
        #expect(problems.count == 2, "\(problems)")
        // One judgement and one fix: doctor counts the bad keys as problems (exit 1), as reload does.
        #expect(doctor.status == 1, "doctor passed a file that reload refuses: \(doctor)")
        #expect(configuration.count == 2 && configuration.allSatisfy { $0.state == .problem }, "\(configuration)")
        let text = try daemon.lockctl("reload")
        let fixes = Set(configuration.compactMap(\.fix))
        #expect(fixes.count == 1 && text.stdout.contains("fix: \(fixes.first ?? "?")"), "\(fixes) \(text.stdout)")
    }

    @Test("a profile file that is a link to a root-only file is refused without showing its content")
    func linkedProfileIsRefused() throws {
        let root = try TestRoot()
        try root.write("secret", "name = \"leak\"\ndomains = [\"top-secret.example\"]\n")
        chmod(root.path + "/secret", 0o600)
        try FileManager.default.createDirectory(atPath: root.path + "/etc/simplylock/profiles.d", withIntermediateDirectories: true)
        #expect(symlink(root.path + "/secret", root.path + "/etc/simplylock/profiles.d/leak.toml") == 0)
        let daemon = try DaemonProcess(root: root)
        let list = try daemon.lockctl("profiles", "list", "--json")
        // The whole output, not only the fields a type knows: the secret must be nowhere in it.
        #expect(!list.stdout.contains("top-secret"), "\(list.stdout)")
        #expect(try list.decode(ProfileList.self).problems.contains { $0.contains("is a symbolic link") }, "\(list.stdout)")
        #expect(try daemon.lockctl("profiles", "show", "leak").status == 6)
    }

    @Test("under --root, the firewall runs only when named with --enforcers, and the log says why")
    func scratchRootLeavesTheMachineAlone() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root, arguments: ["--enforcers", "hosts"])
        try daemon.stop()
        // Without --enforcers: the default set under a scratch root is the hosts file alone.
        let log = root.path + "/default.log"
        let child = try ChildProcess(
            Binaries.daemon, ["--root", root.path, "--data-dir", Binaries.dataDirectory],
            environment: ProcessRunner.environment(), stdout: .file(log), stderr: .file(log))
        defer {
            child.send(SIGTERM)
            _ = child.wait(timeout: 10)
        }
        try waitUntil("the daemon to answer", timeout: 20) {
            try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "status"]).status == 0
        }
        let status = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "status", "--json"])
        #expect(try status.decode(StatusResponse.self).enforcers.map(\.name) == ["hosts"], "\(status)")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("enforcer not used") && text.contains("runs only when named with --enforcers"), "\(text)")
    }

    @Test(
        "a full state directory: the daemon starts, keeps enforcing what it has, refuses changes and says why",
        .enabled(if: unshareMissing == nil, "\(unshareMissing ?? "")"))
    func fullStateDirectory() throws {
        let root = try TestRoot()
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            [
                "-m", TestTools.repository + "/Tests/Scripts/full-state-dir.sh", root.path,
                Binaries.directory, Binaries.dataDirectory,
            ], timeout: 120)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok") }.count == 6, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
