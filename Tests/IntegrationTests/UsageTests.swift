import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// Screen time end to end: the real daemon meters a fake app run by the test (its own copy of
/// the static fake game, never a system binary), and an allowance used up by it starts a block.
/// The meter samples every second here (`SIMPLYLOCK_USAGE_SAMPLE=1,1`), and the system bus
/// points nowhere, so there is no logind to ask: a running app counts as in use (`apps-running`).
@Suite struct UsageTests {
    static let unavailableReason: String? = FakeGame.binary == nil ? "cannot build the static fake game (gcc -static)" : nil
    static let environment = ["SIMPLYLOCK_USAGE_SAMPLE": "1,1", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/simplylock-usage-bus"]

    /// Installs the fake game under the root as the catalog app `fakegame` (category Game);
    /// returns its program.
    static func install(in root: TestRoot) throws -> String {
        let program = root.path + "/opt/fakegame/fakegame"
        try FileManager.default.createDirectory(atPath: root.path + "/opt/fakegame", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try #require(FakeGame.binary), toPath: program)
        chmod(program, 0o755)
        try root.write(
            "usr/share/applications/fakegame.desktop",
            "[Desktop Entry]\nType=Application\nName=Fake Game\nExec=\(program) --fullscreen\nCategories=Game;ActionGame;\n")
        return program
    }

    /// Runs the program (waiting for a signal) for about `seconds`; returns how long it ran.
    static func run(_ program: String, for seconds: Double) throws -> Double {
        let began = Date()
        let game = try ChildProcess(program, ["wait"], environment: ProcessRunner.environment([:]), stdout: .null, stderr: .null)
        Thread.sleep(forTimeInterval: seconds)
        game.send(SIGKILL)
        _ = game.wait(timeout: 5)
        return Date().timeIntervalSince(began)
    }

    @Test(
        "a running app is metered to the second within ±2 s (1 s sampling), per app and category, with the meter named, across a restart",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func metersARunningApp() throws {
        let root = try TestRoot()
        let program = try Self.install(in: root)
        let daemon = try DaemonProcess(root: root, environment: Self.environment)
        Thread.sleep(forTimeInterval: 1.5)  // the meter's first sample (catalog read) is behind it
        let ran = try Self.run(program, for: 6)
        Thread.sleep(forTimeInterval: 2)
        // Minutes are saved when they close, or at shutdown.
        try daemon.stop()
        try daemon.restart(environment: Self.environment)
        let usage = try daemon.decode(UsageResponse.self, "usage", "--days", "2")
        let log = daemon.log().split(separator: "\n").filter {
            $0.contains("usage") || $0.contains("apps in use") || $0.contains("simplylockd: st")
        }
        let fake = try #require(usage.items.first { $0.name == "fakegame" }, "\(usage)\n\(log.joined(separator: "\n"))")
        let seconds = fake.seconds
        #expect(abs(Double(seconds) - ran) <= 2, "metered \(seconds) s for a run of \(ran) s")
        let categories = try daemon.decode(UsageResponse.self, "usage", "--days", "2", "--by", "category").items
        #expect(categories.first?.name == "Game")
        let minutes = try #require(try daemon.decode(UsageResponse.self, "usage", "--days", "2", "--explain").minutes)
        #expect(!minutes.isEmpty && minutes.allSatisfy { $0.meter == "apps-running" && $0.name == "fakegame" })
        let text = try daemon.lockctl("usage", "--explain")
        #expect(text.status == 0 && text.stdout.contains("app:fakegame") && text.stdout.contains("apps-running"), "\(text)")
        // insights --json carries the same screen time, beside the insights' own keys (which
        // decode as the API's insights).
        _ = try daemon.decode(InsightsResponse.self, "insights", "--days", "2")
        let screen = try daemon.decode(InsightsScreenTime.self, "insights", "--days", "2").usage
        #expect(screen["app"]?.first == UsageResponse.Amount(name: "fakegame", seconds: seconds), "\(screen)")
        #expect(screen["category"]?.first?.name == "Game")
        // Nothing running: nothing more is counted.
        Thread.sleep(forTimeInterval: 2)
        let again = try daemon.decode(UsageResponse.self, "usage", "--days", "2").items
        #expect(again.first { $0.name == "fakegame" }?.seconds == seconds)
        try daemon.stop()
    }

    @Test(
        "a 20-second allowance, once used by the running app, starts a block of its profile (origin allowance:NAME) that lasts until midnight",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func allowanceUsedUpStartsABlock() throws {
        let root = try TestRoot()
        let program = try Self.install(in: root)
        try root.write("etc/simplylock/profiles.d/games.toml", "name = \"games\"\ndomains = [\"games.example\"]\napps = [\"fakegame\"]\n")
        let daemon = try DaemonProcess(root: root, environment: Self.environment)
        let added = try daemon.lockctl("allowances", "add", "play", "--profile", "games", "--daily", "20s", "--warn", "5s")
        #expect(added.status == 0, "\(added)")
        #expect(FileManager.default.fileExists(atPath: root.path + "/etc/simplylock/allowances.d/play.toml"))
        let events = try ChildProcess(
            Binaries.lockctl, ["--root", root.path, "events", "--json"], environment: ProcessRunner.environment([:]),
            stdout: .file(root.path + "/events.log"), stderr: .null)
        defer {
            events.send(SIGTERM)
            _ = events.wait(timeout: 5)
        }
        let game = try ChildProcess(program, ["wait"], environment: ProcessRunner.environment([:]), stdout: .null, stderr: .null)
        defer {
            game.send(SIGKILL)
            _ = game.wait(timeout: 5)
        }
        Thread.sleep(forTimeInterval: 10)
        let midway = try #require(try daemon.decode(TimeAllowanceList.self, "allowances", "list").allowances.first)
        let used = midway.usedTodaySeconds
        #expect(used >= 5 && used <= 12, "used \(used) s after about 10 s")
        #expect(!root.hosts().contains("games.example"), "no block before the time is used up")
        try waitUntil("the allowance's block", timeout: 25) { root.hosts().contains("games.example") }
        // Enforcers apply a change before it is saved and shown: the hosts file may lead status a little.
        try waitUntil("the allowance's block in status", timeout: 5) {
            (try? daemon.decode(StatusResponse.self, "status"))?.sessions.contains { $0.origin == "allowance:play" } == true
        }
        let status = try daemon.decode(StatusResponse.self, "status")
        let block = try #require(status.sessions.first { $0.origin == "allowance:play" }, "\(status)")
        #expect(block.profile == "games")
        let after = try #require(try daemon.decode(TimeAllowanceList.self, "allowances", "list").allowances.first)
        #expect(after.blocking)
        #expect(after.leftSeconds == 0)
        let log = (try? String(contentsOfFile: root.path + "/events.log", encoding: .utf8)) ?? ""
        #expect(log.contains("allowance.warning"), "\(log)")
        // A restart keeps the ledger, and the block.
        try daemon.stop()
        try daemon.restart(environment: Self.environment)
        let restored = try #require(try daemon.decode(TimeAllowanceList.self, "allowances", "list").allowances.first)
        #expect(restored.usedTodaySeconds >= 20)
        #expect(root.hosts().contains("games.example"))
        try daemon.stop()
    }
}

/// The screen time `lockctl insights --json` adds beside the API's insights: seconds per name,
/// by app, category, site or device group (a shape of lockctl's own).
private struct InsightsScreenTime: Decodable {
    var usage: [String: [UsageResponse.Amount]]
}
