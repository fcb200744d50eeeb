import Foundation
import Glibc
import LockClient
import LockProtocol
import TestSupport
import Testing

/// Chromium renders the insights page; CI must have it (scripts/setup.sh installs it).
let chromiumMissing = TestTools.missing {
    TestTools.which("chromium") == nil ? "chromium is not installed (scripts/setup.sh installs it)" : nil
}

/// Insights, goals and emergency access against the real daemon and lockctl.
@Suite("Insights and emergency access with the real daemon", .serialized)
struct InsightsTests {
    /// A root whose configuration allows one early end a week after a short wait.
    private func root(delay: String = "2s") throws -> TestRoot {
        let root = try TestRoot()
        try root.write("etc/simplylock/simplylockd.toml", "[friction]\ndelay = \"\(delay)\"\ntyping = 8\nemergency_per_week = 1\n")
        return root
    }

    private func typed(_ challenge: UnlockResponse.Challenge) -> String {
        challenge.pieces.sorted { $0.position < $1.position }.map(\.text).joined()
    }

    private func refusal(_ body: () async throws -> Void) async -> String? {
        do { try await body() } catch let ClientError.api(error) { return "\(error.code.rawValue): \(error.message)" } catch {
            return "\(error)"
        }
        return nil
    }

    @Test("a friction unlock succeeds only after the delay and with the right text, and shows in history and insights")
    func unlockWithFriction() async throws {
        let root = try root()
        let daemon = try DaemonProcess(root: root)
        let client = daemon.client
        #expect(try daemon.lockctl("start", "social", "30m", "--strict").status == 0)
        #expect(try daemon.lockctl("stop", "social").status == 5)

        let asked = try await client.unlock("social")
        let challenge = try #require(asked.challenge)
        #expect(challenge.characters == 8)
        let early = await refusal { _ = try await client.unlock("social", challenge: challenge.id, answer: typed(challenge)) }
        #expect(early?.hasPrefix("refused: too early") == true, "\(early ?? "accepted")")
        try await Task.sleep(for: .seconds(challenge.waitSeconds + 0.3))
        let wrong = await refusal { _ = try await client.unlock("social", challenge: challenge.id, answer: "ABCDEFGH") }
        #expect(wrong?.contains("does not match") == true, "\(wrong ?? "accepted")")
        #expect(try await client.status().sessions.count == 1)
        let done = try await client.unlock("social", challenge: challenge.id, answer: typed(challenge))
        #expect(done.state == .unlocked)
        #expect(try await client.status().sessions.isEmpty)
        #expect(!root.hosts().contains("facebook.com"))

        let history = try await client.history(limit: 1)
        #expect(history.entries.first?.endReason == "unlocked")
        let insights = try daemon.decode(InsightsResponse.self, "insights")
        #expect(insights.totals.unlocks == 1)
        #expect(insights.emergency.used == 1)
    }

    @Test("the weekly allowance holds across restarts of the daemon")
    func allowanceAcrossRestarts() async throws {
        let root = try root(delay: "1s")
        let daemon = try DaemonProcess(root: root)
        let client = daemon.client
        #expect(try daemon.lockctl("start", "social", "30m", "--strict").status == 0)
        let challenge = try #require(try await client.unlock("social").challenge)
        try await Task.sleep(for: .seconds(challenge.waitSeconds + 0.3))
        _ = try await client.unlock("social", challenge: challenge.id, answer: typed(challenge))

        #expect(try daemon.lockctl("start", "news", "30m", "--strict").status == 0)
        try daemon.stop()
        try daemon.restart()
        let again = try daemon.lockctl("unlock", "news")
        #expect(again.status == 5, "\(again)")
        #expect(again.stderr.contains("no early end left: 1 of 1 used in the last 7 days"), "\(again)")
        #expect(try await client.status().sessions.map(\.profile) == ["news"])
    }

    @Test("profile edits that would weaken a running strict block are refused; stricter ones apply at once")
    func weakeningEditsRefused() throws {
        let root = try root()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("profiles", "create", "focus", "--domain", "reddit.com", "--domain", "x.com").status == 0)
        #expect(try daemon.lockctl("start", "focus", "30m", "--strict").status == 0)
        let removal = try daemon.lockctl("profiles", "remove-domain", "focus", "x.com")
        #expect(removal.status == 5, "\(removal)")
        #expect(removal.stderr.contains("only stricter edits are allowed while it runs, and this edit unblocks x.com"), "\(removal)")
        let exception = try daemon.lockctl("profiles", "add-allow", "focus", "old.reddit.com")
        #expect(exception.status == 5, "\(exception)")
        #expect(root.hosts().contains(" x.com"))
        #expect(try daemon.lockctl("profiles", "add-domain", "focus", "news.ycombinator.com").status == 0)
        #expect(root.hosts().contains("news.ycombinator.com"))
    }

    @Test("goals survive a restart and insights show focus per day as a chart and as JSON")
    func goalsAndInsights() throws {
        let root = try root()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("goals", "set", "--daily", "2h", "--weekly", "10h").status == 0)
        #expect(try daemon.lockctl("goals", "set", "--daily", "soon").status == 2)
        try daemon.stop()
        try daemon.restart()
        let goals = try daemon.decode(GoalsInfo.self, "goals", "show")
        #expect(goals.dailySeconds == 7200)
        #expect(goals.weeklySeconds == 36000)
        #expect(try daemon.lockctl("start", "news", "1h").status == 0)
        let text = try daemon.lockctl("insights", "--days", "3")
        #expect(text.status == 0, "\(text)")
        let rows = text.stdout.split(separator: "\n").filter { $0.contains("│") || $0.contains("█") }
        #expect(rows.count == 3, "\(text.stdout)")
        // The goal marker sits in the same column on every row.
        let columns = Set(rows.compactMap { row in row.firstIndex(of: "│").map { row.distance(from: row.startIndex, to: $0) } })
        #expect(columns.count == 1, "\(text.stdout)")
        #expect(!text.stdout.contains("\u{1B}["), "colour only on a terminal")
        let month = try daemon.decode(InsightsResponse.self, "insights", "--month")
        #expect(!month.days.isEmpty)
        #expect(try daemon.lockctl("insights", "--days", "0").status == 2)
        #expect(try daemon.lockctl("insights", "--month", "--days", "3").status == 2)
    }

    @Test(
        "the HTML page renders in a real headless browser (screenshot in .build/test-artefacts)",
        .enabled(if: chromiumMissing == nil, "\(chromiumMissing ?? "")"))
    func htmlRendersInChromium() throws {
        let root = try root()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("goals", "set", "--daily", "1h", "--weekly", "5h").status == 0)
        #expect(try daemon.lockctl("start", "news", "1h").status == 0)
        let page = root.path + "/insights.html"
        let written = try daemon.lockctl("insights", "--days", "10", "--html", page)
        #expect(written.status == 0, "\(written)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<svg"))
        #expect(!html.contains("<script"), "self-contained and static")
        #expect(!html.contains("src=\""), "nothing loaded from elsewhere")
        // What the terminal shows is on the page too, each chart named for assistive technology,
        // with a legend for every colour, and a dark theme.
        for column in ["Pomodoros", "Blocked attempts", "Early ends"] { #expect(html.contains(">\(column)</th>"), "\(column)") }
        #expect(html.components(separatedBy: "<caption>").count - 1 == html.components(separatedBy: "<table>").count - 1)
        #expect(html.contains("<caption>Focus time per day, against the daily goal of 1h 00m</caption>"))
        #expect(html.contains("class=\"legend\"") && html.contains("daily goal, 1h 00m"))
        #expect(!html.contains("<svg xmlns") && html.contains("<svg aria-hidden=\"true\""), "bars repeat the table's numbers")
        #expect(html.contains("prefers-color-scheme: dark"))
        // Ten days always hold a week only partly in the window (this one, at least): it says so.
        #expect(html.contains("of its 7 days in this window"), "weeks say how much of them the window holds")
        // lockctl adds its usage beside the API's insights in one object: the insights' own keys
        // stay at the top (decoding as the API's insights fails otherwise).
        _ = try daemon.decode(InsightsResponse.self, "insights", "--days", "7")

        let artefacts = TestTools.repository + "/.build/test-artefacts"
        try FileManager.default.createDirectory(atPath: artefacts, withIntermediateDirectories: true)
        let screenshot = artefacts + "/insights.png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let chromium = try #require(TestTools.which("chromium"), "chromium is not installed")
        let result = try ProcessRunner.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--user-data-dir=\(root.path)/chromium", "--window-size=1000,900", "--screenshot=\(screenshot)", "file://\(page)",
            ], timeout: 90)
        #expect(result.status == 0, "\(result)")
        let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot: \(result)")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // A blank page compresses to a few kilobytes; charts and text make it larger.
        #expect(png.count > 10_000, "screenshot of \(png.count) bytes looks empty")
        let dark = artefacts + "/insights-dark.png"
        try? FileManager.default.removeItem(atPath: dark)
        let darkRun = try ProcessRunner.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--force-dark-mode",
                "--user-data-dir=\(root.path)/chromium-dark", "--window-size=1000,900", "--screenshot=\(dark)", "file://\(page)",
            ], timeout: 90)
        let darkPNG = try #require(FileManager.default.contents(atPath: dark), "no dark screenshot: \(darkRun)")
        #expect(darkPNG != png, "the dark theme looks the same as the light one")
    }
}
