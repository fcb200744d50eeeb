import Foundation
import Glibc
import TestSupport
import Testing

/// `lockctl notify` against a private session bus (`dbus-daemon --session`) with a notification
/// server that records every Notify call it receives.
enum NotifierPrerequisites {
    static let missing: String? = TestTools.missing {
        if TestTools.which("dbus-daemon") == nil { return "dbus-daemon is not installed (Debian package dbus)" }
        let probe = try? ProcessRunner.run("/usr/bin/python3", ["-c", "import dbus, gi"])
        return probe?.status == 0 ? nil : "python3-dbus and python3-gi are not installed"
    }
}

@Suite(
    "Desktop notifications", .serialized,
    .enabled(if: NotifierPrerequisites.missing == nil, "\(NotifierPrerequisites.missing ?? "")"))
struct NotifierTests {
    /// A private session bus with the recorder on it.
    final class Desktop {
        let bus: ChildProcess
        let recorder: ChildProcess
        let address: String
        let recorded: String

        /// `invoke`: the button the recorder presses on the first notification that offers it.
        init(root: TestRoot, invoke: String? = nil) throws {
            address = "unix:path=\(root.path)/bus"
            recorded = root.path + "/notifications.jsonl"
            bus = try ChildProcess(
                TestTools.which("dbus-daemon")!, ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
                environment: ProcessRunner.environment(), stdout: .null, stderr: .null)
            try waitUntil("the session bus") { FileManager.default.fileExists(atPath: root.path + "/bus") }
            recorder = try ChildProcess(
                "/usr/bin/python3",
                [TestTools.repository + "/Tests/Scripts/notification_recorder.py", recorded] + (invoke.map { ["--invoke", $0] } ?? []),
                environment: ProcessRunner.environment(["DBUS_SESSION_BUS_ADDRESS": address]),
                stdout: .null, stderr: .file(root.path + "/recorder.err"))
            try waitUntil("the notification server") { FileManager.default.fileExists(atPath: recorded) }
        }

        deinit {
            for child in [recorder, bus] {
                child.send(SIGTERM)
                _ = child.wait(timeout: 5)
            }
        }

        func notifications() -> [Notification] {
            ((try? String(contentsOfFile: recorded, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONDecoder().decode(Notification.self, from: Data($0.utf8))
            }
        }

        func summaries() -> [String] { notifications().map(\.summary) }

        func waitFor(_ summary: String, timeout: Double = 10) throws {
            try waitUntil("a notification \"\(summary)\" (have: \(summaries()))", timeout: timeout) { summaries().contains(summary) }
        }
    }

    /// One Notify call as `notification_recorder.py` wrote it.
    struct Notification: Decodable {
        /// A hint's value: the recorder writes D-Bus integers as numbers, anything else as text.
        enum Hint: Decodable, Equatable {
            case number(Int)
            case text(String)

            init(from decoder: Decoder) throws {
                let value = try decoder.singleValueContainer()
                if let number = try? value.decode(Int.self) { self = .number(number) } else { self = .text(try value.decode(String.self)) }
            }
        }

        var app: String
        var summary: String
        var body: String
        /// Key, label, key, label…
        var actions: [String]
        var hints: [String: Hint]
    }

    static func notifier(_ arguments: [String], desktop: Desktop, log: String) throws -> ChildProcess {
        try ChildProcess(
            Binaries.lockctl, ["notify"] + arguments,
            environment: ProcessRunner.environment(["DBUS_SESSION_BUS_ADDRESS": desktop.address, "TZ": "UTC"]),
            stdout: .null, stderr: .file(log))
    }

    @Test("blocks, schedule warnings and Pomodoro phases become notifications, across a daemon restart")
    func liveDaemon() throws {
        let root = try TestRoot()
        let desktop = try Desktop(root: root)
        let log = root.path + "/notify.log"
        // Started before the daemon: it waits for the socket without polling.
        let notifier = try Self.notifier(["--root", root.path], desktop: desktop, log: log)
        defer {
            notifier.send(SIGTERM)
            _ = notifier.wait(timeout: 5)
        }
        try waitUntil("notify to wait for the daemon") { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("waiting") }
        let daemon = try DaemonProcess(root: root)
        try waitUntil("notify to follow the daemon") { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("following") }

        #expect(try daemon.lockctl("start", "news", "10m", "--strict").status == 0)
        try desktop.waitFor("news is blocked")
        let started = try #require(desktop.notifications().first { $0.summary == "news is blocked" })
        #expect(started.app == "SimplyLock")
        #expect(started.body.contains("Strict"))
        #expect(started.hints["urgency"] == .number(1))

        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "gaming", "--focus", "5m").status == 0)
        try desktop.waitFor("Pomodoro: focus started (cycle 1), 5m")
        #expect(try daemon.lockctl("pomodoro", "stop").status == 0)
        try desktop.waitFor("gaming block was stopped")

        let soon = Date().addingTimeInterval(120)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        #expect(
            try daemon.lockctl(
                "schedules", "add", "soon", "--profile", "video", "--on", formatter.string(from: soon), "--length", "10m",
                "--tz", "UTC", "--warn", "5m"
            ).status == 0)
        try waitUntil("a schedule warning") { desktop.summaries().contains { $0.hasPrefix("soon starts in ") } }

        // The daemon restarts: notify follows the new one. A block started before notify is
        // connected again is announced too, from the difference to the blocks it knew.
        try daemon.stop()
        try daemon.restart()
        #expect(try daemon.lockctl("start", "social", "5m").status == 0)
        do { try desktop.waitFor("social is blocked", timeout: 15) } catch {
            throw TestFailure("\(error)\nnotify's log:\n\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.filter { $0.contains("following") }.count == 2, "\(lines)")
    }

    @Test("a burst of blocked attempts is one notification, saying which block and how long it has left")
    func recordedStreamOfAttempts() throws {
        let root = try TestRoot()
        let desktop = try Desktop(root: root)
        let now = Date()
        let ends = ISO8601DateFormatter().string(from: now.addingTimeInterval(23 * 60 + 30))
        let at = ISO8601DateFormatter().string(from: now)
        let session =
            #"{"id":"a1b2c3d4e5f6","profile":"deep-work","origin":"manual","strict":false,"startedAt":"\#(at)","endsAt":"\#(ends)","remainingSeconds":1410,"blockedNames":40,"apps":[],"missingApps":[],"target":["local"]}"#
        try #"{"version":"0.1.0","now":"\#(at)","sessions":[\#(session)],"blockedNames":40,"enforcers":[],"notices":[]}"#
            .write(toFile: root.path + "/status.json", atomically: true, encoding: .utf8)
        // As the insights branch sends them: one event per (collapsed) attempt.
        var events = [#"{"type":"hello","at":"\#(at)","message":"simplylockd 0.1.0"}"#]
        for _ in 0..<25 {
            events.append(
                #"{"type":"site.blocked","at":"\#(at)","message":"youtube.com blocked","profile":"deep-work","details":{"name":"youtube.com","source":"dns","count":1}}"#
            )
        }
        events.append(#"{"type":"app.blocked","at":"\#(at)","message":"steam blocked","profile":"deep-work","details":{"name":"steam"}}"#)
        try events.joined(separator: "\n").write(toFile: root.path + "/events.jsonl", atomically: true, encoding: .utf8)
        let socket = root.path + "/fake.sock"
        let server = try ChildProcess(
            "/usr/bin/python3",
            [
                TestTools.repository + "/Tests/Scripts/fake_event_stream.py", socket,
                root.path + "/status.json", root.path + "/events.jsonl",
            ],
            environment: ProcessRunner.environment(), stdout: .null, stderr: .null)
        defer {
            server.send(SIGTERM)
            _ = server.wait(timeout: 5)
        }
        try waitUntil("the fake daemon") { FileManager.default.fileExists(atPath: socket) }
        let notifier = try Self.notifier(["--socket", socket], desktop: desktop, log: root.path + "/notify.log")
        defer {
            notifier.send(SIGTERM)
            _ = notifier.wait(timeout: 5)
        }
        try waitUntil("the app's shield (have: \(desktop.summaries()))") {
            desktop.summaries().contains { $0.hasPrefix("steam is blocked") }
        }
        let shields = desktop.summaries().filter { $0.hasPrefix("youtube.com") }
        #expect(shields.count == 1, "\(desktop.summaries())")
        #expect(shields.first?.hasPrefix("youtube.com is blocked by deep-work — 23m") == true, "\(shields)")
    }
}
