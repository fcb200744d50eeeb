import Foundation
import Glibc
import LockCore
import LockProtocol
import TestSupport
import Testing

/// `systemd-analyze calendar` is the reference for calendar expressions.
let systemdAnalyzePath: String? = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Zones for the time-zone change test.
let zoneinfoHasFixedOffsets =
    FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Etc/GMT-2")
    && FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Etc/UTC")

@Suite("Schedules through the real daemon and lockctl")
struct ScheduleTests {
    /// `yyyy-MM-dd HH:mm:ss` in UTC, as `--on` takes it with `--tz UTC`.
    static func utcText(_ date: Date, format: String = "yyyy-MM-dd HH:mm:ss") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    /// A whole second at least `seconds` from now.
    static func secondsFromNow(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
    }

    static func rfc3339(_ text: String?) -> Date? { text.flatMap { ISO8601DateFormatter().date(from: $0) } }

    func schedules(_ daemon: DaemonProcess) throws -> [ScheduleInfo] {
        try daemon.decode(ScheduleList.self, "schedules", "list").schedules
    }

    @Test("a one-off schedule a few seconds ahead starts a block at its start and ends it at its end")
    func startsAndEnds() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let start = Self.secondsFromNow(3)
        let add = try daemon.lockctl(
            "schedules", "add", "soon", "--profile", "news", "--on", Self.utcText(start),
            "--length", "3s", "--tz", "UTC")
        #expect(add.status == 0, "\(add)")
        let listed = try #require(try schedules(daemon).first)
        #expect(listed.next?.start == start)
        try waitUntil("the scheduled block to be in the hosts file", timeout: 20) { root.hosts().contains(" news.ycombinator.com") }
        try waitUntil("the scheduled block to end", timeout: 20) { !root.hosts().contains("simplylock") }
        let entry = try #require(try daemon.decode(HistoryResponse.self, "history").entries.first)
        #expect(entry.origin == "schedule:soon")
        #expect(entry.endReason == "expired")
        #expect(entry.startedAt >= start, "the block started before its schedule did")
        #expect(try daemon.decode(StatusResponse.self, "status").sessions.isEmpty)
    }

    @Test("a restart inside an interval blocks again before the daemon answers, even with the state lost")
    func restartInsideAnInterval() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 60)
        #expect(
            try daemon.lockctl(
                "schedules", "add", "now", "--profile", "social", "--on", Self.utcText(start), "--length", "1h",
                "--tz", "UTC"
            ).status == 0)
        #expect(root.hosts().contains(" facebook.com"))
        let first = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first)
        #expect(first.origin == "schedule:now")

        // An orderly restart keeps the same session.
        try daemon.stop()
        try daemon.restart()
        let resumed = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first)
        #expect(resumed.id == first.id)

        // A crash that also loses the hosts section and the whole state: schedules are
        // computed, not remembered, so the block is back by the time the daemon answers.
        try daemon.kill9()
        try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: root.hostsPath))
        for suffix in ["", "-wal", "-shm"] { unlink(root.statePath + suffix) }
        try daemon.restart()
        #expect(root.hosts().contains(" facebook.com"))
        let session = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first)
        #expect(session.origin == "schedule:now")
        let remaining = session.remainingSeconds
        let expected = start.addingTimeInterval(3600).timeIntervalSinceNow
        #expect(Double(remaining) <= expected + 2 && Double(remaining) > expected - 120, "\(remaining) vs \(expected)")
    }

    @Test(
        "schedules next --after agrees with systemd-analyze calendar --base-time",
        .enabled(if: systemdAnalyzePath != nil, "systemd-analyze is not installed"))
    func nextAgreesWithSystemd() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let expressions = [
            "Mon..Fri *-*-* 09:30", "*-*~01 18:00", "*:0/20", "*-*-* 02:30", "*-02-29 02:30", "Sun *-*-1..7 12:00", "Sat,Sun 01:30",
        ]
        for (index, expression) in expressions.enumerated() {
            let add = try daemon.lockctl(
                "schedules", "add", "e\(index)", "--profile", "news", "--on", expression, "--length", "10m",
                "--tz", "Europe/Berlin")
            #expect(add.status == 0, "\(add)")
        }
        // Spring forward in Berlin, month ends, a leap day, an ordinary summer day.
        let bases = ["2027-03-27T12:00:00Z", "2027-03-28T00:59:59Z", "2028-02-27T23:00:00Z", "2026-07-15T10:11:12Z"]
        var compared = 0
        for base in bases {
            let baseDate = try #require(Self.rfc3339(base))
            for (index, expression) in expressions.enumerated() {
                let iterations = 12
                let systemd = try ProcessRunner.run(
                    systemdAnalyzePath!,
                    [
                        "calendar", "--iterations=\(iterations)",
                        "--base-time=@\(Int(baseDate.timeIntervalSince1970))", expression,
                    ],
                    environment: ["TZ": "Europe/Berlin", "LC_ALL": "C", "SYSTEMD_COLORS": "0"])
                #expect(systemd.status == 0, "\(systemd)")
                let expected = systemd.stdout.split(separator: "\n").compactMap { line -> Date? in
                    guard let range = line.range(of: "(in UTC): ") else { return nil }
                    let parts = line[range.upperBound...].split(separator: " ")
                    guard parts.count == 4 else { return nil }
                    return Self.rfc3339("\(parts[1])T\(parts[2])Z")
                }
                #expect(!expected.isEmpty, "\(systemd.stdout)")
                let ours = try daemon.lockctl("schedules", "next", "e\(index)", "--count", "\(expected.count)", "--after", base, "--json")
                #expect(ours.status == 0, "\(ours)")
                let intervals = try ours.decode([ScheduleInterval].self)
                #expect(intervals.map(\.start) == expected, "\(expression) after \(base)")
                #expect(intervals.allSatisfy { $0.end.timeIntervalSince($0.start) == 600 })
                compared += expected.count
            }
        }
        #expect(compared > 200)
    }

    @Test("bad input is refused with the field named, exit status 2 (6 when unknown), and nothing is written")
    func badInput() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let cases: [([String], Int32, String)] = [
            (["--profile", "ghost", "--days", "all", "--from", "09:00", "--to", "10:00"], 6, "ghost"),
            (["--profile", "news", "--days", "mon-fri", "--from", "25:00", "--to", "12:30"], 2, "from: 25:00"),
            (["--profile", "news", "--cron", "61 * * * *", "--length", "5m"], 2, "cron: minute 61"),
            (["--profile", "news", "--on", "daily", "--length", "1h", "--tz", "Mars/Olympus"], 2, "tz: Mars/Olympus"),
            (["--profile", "news", "--on", "daily", "--length", "0s"], 2, "--length: "),
            (["--profile", "news", "--on", "daily", "--length=-5m"], 2, "--length: "),
            // --for names devices, as in start; a length given there is refused with the new name.
            (["--profile", "news", "--on", "daily", "--for", "45m"], 2, "the length of each block is --length 45m"),
            (["--profile", "news", "--days", "all", "--from", "09:00", "--to", "09:00:30"], 2, "--to: "),
            (["--profile", "news", "--on", "daily"], 2, "--length is required with --on"),
            (["--profile", "news", "--on", "*-*-* 25:00", "--length", "1h"], 2, "--on: "),
            (["--profile", "news", "--days", "all", "--from", "09:00", "--to", "10:00", "--cron", "0 9 * * *"], 2, "--cron: "),
            (["--profile", "news", "--on", "daily", "--length", "1h", "--warn", "soon"], 2, "--warn: "),
        ]
        for (arguments, status, fragment) in cases {
            let result = try daemon.lockctl(["schedules", "add", "bad"] + arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
        }
        let badName = try daemon.lockctl("schedules", "add", "Bad_Name", "--profile", "news", "--on", "daily", "--length", "1h")
        #expect(badName.status == 2 && badName.stderr.contains("<name>: "), "\(badName)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: root.path + "/etc/simplylock/schedules.d")) ?? []).isEmpty)
        #expect(try schedules(daemon).isEmpty)
        #expect(try daemon.lockctl("schedules", "show", "ghost").status == 6)
        #expect(try daemon.lockctl("schedules", "next", "ghost").status == 6)
        #expect(try daemon.lockctl("schedules", "enable", "ghost").status == 6)
        #expect(try daemon.lockctl("schedules", "remove", "ghost").status == 6)
        #expect(try daemon.lockctl("schedules", "add", "ok", "--profile", "news", "--on", "daily", "--length", "1h").status == 0)
        #expect(try daemon.lockctl("schedules", "add", "ok", "--profile", "news", "--on", "daily", "--length", "1h").status == 5)
        #expect(try daemon.lockctl("schedules", "next", "ok", "--after", "yesterday").status == 2)
        #expect(try daemon.lockctl("schedules", "next", "ok", "--count", "0").status == 2)
    }

    @Test("a block stopped by hand stays stopped until the next interval; strict ones cannot be stopped, disabled or removed")
    func stopDisableRemove() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 60)
        #expect(
            try daemon.lockctl(
                "schedules", "add", "soft", "--profile", "news", "--on", Self.utcText(start), "--length", "1h",
                "--tz", "UTC"
            ).status == 0)
        #expect(root.hosts().contains(" news.ycombinator.com"))
        #expect(try daemon.lockctl("stop", "news").status == 0)
        #expect(!root.hosts().contains(" news.ycombinator.com"))
        #expect(try daemon.lockctl("reload").status == 0)
        try daemon.stop()
        try daemon.restart()
        #expect(!root.hosts().contains(" news.ycombinator.com"))
        let soft = try #require(try schedules(daemon).first)
        #expect(soft.stoppedByHand)
        #expect(try daemon.lockctl("schedules", "list").stdout.contains("stopped by hand"))
        #expect(try daemon.lockctl("status").stdout.contains("soft stopped by hand"))

        // Disabling and enabling again inside the interval starts it afresh.
        #expect(try daemon.lockctl("schedules", "disable", "soft").status == 0)
        #expect(try daemon.lockctl("schedules", "enable", "soft").status == 0)
        #expect(root.hosts().contains(" news.ycombinator.com"))
        #expect(try daemon.lockctl("schedules", "disable", "soft").status == 0)
        #expect(!root.hosts().contains(" news.ycombinator.com"))
        #expect(
            try String(contentsOfFile: root.path + "/etc/simplylock/schedules.d/soft.toml", encoding: .utf8).contains("enabled = false"))

        #expect(
            try daemon.lockctl(
                "schedules", "add", "exam", "--profile", "video", "--on", Self.utcText(start), "--length", "1h",
                "--tz", "UTC", "--strict", "--now"
            ).status == 0)
        #expect(root.hosts().contains(" youtube.com"))
        for command in [["stop", "video"], ["schedules", "disable", "exam"], ["schedules", "remove", "exam"]] {
            let refused = try daemon.lockctl(command)
            #expect(refused.status == 5, "\(command): \(refused)")
            #expect(refused.stderr.contains("strict"), "\(refused.stderr)")
        }
        #expect(root.hosts().contains(" youtube.com"))
        let show = try daemon.lockctl("schedules", "show", "exam")
        #expect(show.stdout.contains("Strict:") && show.stdout.contains("yes") && show.stdout.contains("active until"), "\(show.stdout)")
        #expect(try daemon.lockctl("schedules", "remove", "soft").status == 0)
        #expect(!FileManager.default.fileExists(atPath: root.path + "/etc/simplylock/schedules.d/soft.toml"))
    }

    @Test("hand-edited files are picked up on lockctl reload and SIGHUP; bad ones are reported with file:line: field")
    func reloadAndSighup() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        try root.write(
            "etc/simplylock/schedules.d/broken.toml", "name = \"broken\"\nprofile = \"news\"\ncron = \"61 * * * *\"\nfor = \"5m\"\n")
        let reload = try daemon.lockctl("reload")
        #expect(reload.status == 1, "a reload that reports problems exits 1")
        #expect(reload.stdout.contains("schedules.d/broken.toml:3: cron: minute 61 out of range 0–59"), "\(reload.stdout)")
        #expect(try daemon.decode(ScheduleList.self, "schedules", "list").problems != [])

        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 60)
        try root.write(
            "etc/simplylock/schedules.d/handmade.toml",
            """
            name = "handmade"
            profile = "gaming"
            on = "\(Self.utcText(start)) UTC"
            for = "1h"
            """)
        daemon.process.send(SIGHUP)
        try waitUntil("SIGHUP to pick up the new schedule", timeout: 20) { root.hosts().contains(" steampowered.com") }
        #expect(try schedules(daemon).map(\.name) == ["handmade"])
    }

    @Test("warnings before a start go to the event stream and the status")
    func warnings() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let eventsFile = root.path + "/events.jsonl"
        _ = FileManager.default.createFile(atPath: eventsFile, contents: nil)
        let listener = try ChildProcess(
            Binaries.lockctl, ["--root", root.path, "events", "--json"],
            environment: ProcessRunner.environment(), stdout: .file(eventsFile))
        defer { listener.send(SIGTERM) }
        try waitUntil("the event stream to start") { (try? String(contentsOfFile: eventsFile, encoding: .utf8))?.contains("hello") == true }
        let start = Self.secondsFromNow(150)
        #expect(
            try daemon.lockctl(
                "schedules", "add", "later", "--profile", "news", "--on", Self.utcText(start), "--length", "10m",
                "--tz", "UTC"
            ).status == 0)
        try waitUntil("a schedule.warning event", timeout: 20) {
            (try? String(contentsOfFile: eventsFile, encoding: .utf8))?.contains("schedule.warning") == true
        }
        let line = try #require(
            try String(contentsOfFile: eventsFile, encoding: .utf8).split(separator: "\n")
                .first { $0.contains("schedule.warning") })
        let event = try API.makeDecoder().decode(Event.self, from: Data(line.utf8))
        #expect(event.type == .scheduleWarning)
        #expect(event.message.hasPrefix("later starts in "))
        #expect(event.details?["schedule"] == "later")
        #expect(event.details?["edge"] == "start")
        let notices = try daemon.decode(StatusResponse.self, "status").notices
        #expect(
            notices.contains { $0.hasPrefix("later starts in ") && (try? DurationParser.parse(String($0.dropFirst(16)))) != nil },
            "\(notices)")
        #expect(try daemon.lockctl("status").stdout.contains("! later starts in"))
    }

    @Test(
        "schedules without a zone follow a change of the system's zone",
        .enabled(if: zoneinfoHasFixedOffsets, "/usr/share/zoneinfo lacks Etc/UTC or Etc/GMT-2"))
    func zoneChange() throws {
        let root = try TestRoot()
        #expect(symlink("/usr/share/zoneinfo/Etc/UTC", root.path + "/etc/localtime") == 0)
        // TZ would override the machine's zone, as it does for every program.
        let daemon = try DaemonProcess(root: root, environment: ["TZ": ""])
        // A daily window around "now" two hours east of UTC, not around now in UTC.
        let local = Date().addingTimeInterval(2 * 3600)
        let from = Self.utcText(local.addingTimeInterval(-600), format: "HH:mm")
        let to = Self.utcText(local.addingTimeInterval(3000), format: "HH:mm")
        #expect(
            try daemon.lockctl("schedules", "add", "east", "--profile", "news", "--days", "all", "--from", from, "--to", to).status == 0)
        #expect(!root.hosts().contains(" news.ycombinator.com"))
        #expect(try schedules(daemon).first?.timeZone == "Etc/UTC")

        // As timedatectl does it: a new link renamed over the old one.
        #expect(symlink("/usr/share/zoneinfo/Etc/GMT-2", root.path + "/etc/localtime.new") == 0)
        #expect(rename(root.path + "/etc/localtime.new", root.path + "/etc/localtime") == 0)
        try waitUntil("the zone change to start the block", timeout: 20) { root.hosts().contains(" news.ycombinator.com") }
        #expect(try schedules(daemon).first?.timeZone == "Etc/GMT-2")
        #expect(daemon.log().contains("system time zone changed"))
    }
}

@Suite("Profiles in use")
struct ProfileInUseTests {
    @Test("a profile that a schedule or the Pomodoro timer uses cannot be deleted")
    func deleteRefused() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("profiles", "create", "focus", "--domain", "reddit.com").status == 0)
        #expect(
            try daemon.lockctl("schedules", "add", "later", "--profile", "focus", "--on", "2099-01-01 08:00", "--length", "1h").status == 0)
        let refused = try daemon.lockctl("profiles", "delete", "focus")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("schedule later"))
        #expect(try daemon.lockctl("schedules", "remove", "later").status == 0)
        #expect(try daemon.lockctl("profiles", "create", "other", "--domain", "x.com").status == 0)
        #expect(try daemon.lockctl("pomodoro", "start", "--profile", "other", "--focus", "1h").status == 0)
        let pomodoro = try daemon.lockctl("profiles", "delete", "other")
        #expect(pomodoro.status == 5)
        #expect(try daemon.lockctl("profiles", "delete", "focus").status == 0)
    }
}
