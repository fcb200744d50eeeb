import Foundation
import Glibc
import LockCore
import LockProtocol
import TestSupport
import Testing

/// What lockctl says is what holds (issue 26): ends as asked, `stop --all`'s one meaning, LAN
/// blocks that are only saved, status bar lines and the is-active status, a counting watch.
@Suite("lockctl answers only what is true")
struct TruthfulAnswerTests {
    static let utc = ["TZ": "UTC"]

    /// One line of `status --format waybar`: Waybar's custom-module JSON, not an API type.
    struct WaybarLine: Decodable {
        var text: String
        var alt: String
        var tooltip: String
        var `class`: [String]
    }

    @Test("start --until HH:MM answers with that time, whatever the fraction of the second it was typed at")
    func untilAnswersTheTimeAsked() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root, environment: Self.utc)
        let zone = TimeZone(identifier: "UTC")!
        // Several starts at different fractions of a second: rounded to the nearest second, the
        // end fell half a second early about every other time.
        for (index, profile) in ["shopping", "news", "video", "social"].enumerated() {
            let now = Date()
            let minute = (now.timeIntervalSince1970 / 60).rounded(.down) * 60
            let target = Date(timeIntervalSince1970: minute + Double(120 + index) * 60)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: target)
            let sameDay = calendar.isDate(target, inSameDayAs: now)
            let argument =
                sameDay
                ? String(format: "%02d:%02d", parts.hour!, parts.minute!)
                : String(format: "%04d-%02d-%02d %02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
            let result = try daemon.lockctl(["start", profile, "--until", argument], environment: Self.utc)
            #expect(result.status == 0, "\(result)")
            let shown = ClockText.time(target, now: now, zone: zone)
            #expect(result.stdout.contains("blocked until \(shown) ("), "asked --until \(argument): \(result.stdout)")
            usleep(useconds_t(130_000 + index * 70_000))
        }
    }

    @Test("stop --all stops what may be stopped, lists the strict block it leaves, and exits 0")
    func stopAllHasOneMeaning() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "30m").status == 0)
        #expect(try daemon.lockctl("start", "social", "30m", "--strict").status == 0)
        let json = try daemon.lockctl("stop", "--all", "--json")
        #expect(json.status == 0, "\(json)")
        #expect(json.stderr.isEmpty, "an error beside the answer: \(json.stderr)")
        let answer = try json.decode(SessionListAnswer.self)
        #expect(answer.sessions.map(\.profile) == ["news"], "\(answer)")
        #expect(answer.left?.map(\.profile) == ["social"], "\(answer)")
        #expect(try daemon.lockctl("start", "news", "30m").status == 0)
        let text = try daemon.lockctl("stop", "--all")
        #expect(text.status == 0 && text.stdout.contains("news block stopped"), "\(text)")
        #expect(text.stdout.contains("social left running: a strict block until"), "\(text)")
        // Only a strict block left: nothing to stop, still what --all means.
        let again = try daemon.lockctl("stop", "--all")
        #expect(again.status == 0 && again.stdout.contains("social left running"), "\(again)")
        // A strict block named on its own is still refused.
        #expect(try daemon.lockctl("stop", "social").status == 5)
    }

    @Test("status --format gives one line for status bars, and --quiet only the is-active status")
    func statusBarLines() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("status", "--quiet").status == 3)
        let idle = try daemon.lockctl("status", "--format", "line")
        #expect(idle.status == 0 && idle.stdout == "idle\n", "\(idle)")
        #expect(try daemon.lockctl("start", "news", "30m").status == 0)
        #expect(try daemon.lockctl("start", "social", "1h", "--strict").status == 0)
        let quiet = try daemon.lockctl("status", "--quiet")
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
        let line = try daemon.lockctl("status", "--format", "line")
        #expect(line.stdout.hasPrefix("news 29m5") || line.stdout.hasPrefix("news 30m"), "\(line)")
        #expect(line.stdout.hasSuffix(" +1\n") && line.stdout.split(separator: "\n").count == 1, "\(line)")
        let waybar = try daemon.lockctl("status", "--format", "waybar")
        #expect(waybar.stdout.split(separator: "\n").count == 1, "\(waybar)")
        let object = try waybar.decode(WaybarLine.self)
        #expect(object.text == line.stdout.trimmingCharacters(in: .newlines), "\(object)")
        #expect(object.class == ["active", "strict"] && object.alt == "active", "\(object)")
        #expect(object.tooltip.contains("social until"), "\(object)")
        let blocks = try daemon.lockctl("status", "--format", "i3blocks").stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(blocks.count == 4 && blocks[0].hasPrefix("news ") && blocks[2].hasPrefix("#"), "\(blocks)")
        #expect(try daemon.lockctl("status", "--format", "tmux").status == 2)
        #expect(try daemon.lockctl("status", "--format", "line", "--json").status == 2)
        try daemon.stop()
        // Nothing answers: nothing is known to be blocked.
        #expect(try daemon.lockctl("status", "--quiet").status == 3)
    }

    @Test("status --watch counts a block's time down each second, between events")
    func watchCountsDown() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "2m").status == 0)
        let output = root.path + "/watch.out"
        let watch = try ChildProcess(
            Binaries.lockctl, ["--root", root.path, "status", "--watch", "--format", "line"],
            environment: ProcessRunner.environment(), stdout: .file(output), stderr: .file(output))
        usleep(3_600_000)
        watch.send(SIGTERM)
        _ = watch.wait(timeout: 5)
        let lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        // One line as the stream opens, then one a second: at least three different times.
        #expect(Set(lines).count >= 3, "\(lines)")
        let seconds = lines.compactMap { line -> Int? in
            guard let text = line.split(separator: " ").dropFirst().first, let value = try? DurationParser.parse(String(text)) else {
                return nil
            }
            return Int(value.components.seconds)
        }
        #expect(seconds.count == lines.count && zip(seconds, seconds.dropFirst()).allSatisfy { $0 > $1 }, "\(lines)")
    }

    @Test("profiles show says what a domain blocks with the enforcers in force (the hosts file alone: exact names)")
    func profileCoveragePerEnforcer() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let show = try daemon.lockctl("profiles", "show", "shopping")
        #expect(show.status == 0, "\(show)")
        #expect(!show.stdout.contains("and their subdomains"), "\(show.stdout)")
        #expect(
            show.stdout.contains("the exact names and their www. twins (hosts); subdomains only with the dns enforcer"), "\(show.stdout)")
    }
}
