import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// What the tray tests need besides the notification tests' tools: dbus-send, to click.
enum TrayPrerequisites {
    static let missing: String? =
        NotifierPrerequisites.missing
        ?? TestTools.missing { TestTools.which("dbus-send") == nil ? "dbus-send is not installed (Debian package dbus-bin)" : nil }
}

/// `lockctl notify`'s tray icon and notification buttons against stand-ins on a private session
/// bus (`dbus-daemon --session`): a StatusNotifierWatcher that reads the icon and its menu as a
/// panel does and clicks its items, and the notification recorder pressing a button; the real
/// daemon under a scratch root does what they ask.
@Suite(
    "Tray icon and notification buttons", .serialized,
    .enabled(if: TrayPrerequisites.missing == nil, "\(TrayPrerequisites.missing ?? "")"))
struct TrayTests {
    /// The stand-in panel: `Tests/Scripts/tray_watcher.py`.
    final class Watcher {
        let process: ChildProcess
        let output: String
        let address: String

        init(root: TestRoot, desktop: NotifierTests.Desktop, name: String = "watcher") throws {
            address = desktop.address
            output = root.path + "/\(name).jsonl"
            process = try ChildProcess(
                "/usr/bin/python3", [TestTools.repository + "/Tests/Scripts/tray_watcher.py", output],
                environment: ProcessRunner.environment(["DBUS_SESSION_BUS_ADDRESS": desktop.address]),
                stdout: .null, stderr: .file(root.path + "/\(name).err"))
            try waitUntil("the StatusNotifierWatcher") { FileManager.default.fileExists(atPath: output) }
        }

        deinit { stop() }

        func stop() {
            process.send(SIGTERM)
            _ = process.wait(timeout: 5)
        }

        /// What the watcher read, oldest first.
        func snapshots() -> [Snapshot] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONDecoder().decode(Snapshot.self, from: Data($0.utf8))
            }
        }

        /// Waits for a snapshot that `condition` accepts, and returns it.
        @discardableResult
        func waitFor(_ what: String, timeout: Double = 10, _ condition: @escaping (Snapshot) -> Bool) throws -> Snapshot {
            var found: Snapshot?
            do {
                try waitUntil(what, timeout: timeout) {
                    found = snapshots().last.flatMap { condition($0) ? $0 : nil }
                    return found != nil
                }
            } catch {
                throw TestFailure("\(error)\nlast snapshot: \(snapshots().last.map { "\($0)" } ?? "none")")
            }
            return found!
        }

        /// Clicks the menu item at `path` (labels from the top), as a person does.
        func click(_ path: String...) throws {
            let result = try ProcessRunner.run(
                TestTools.which("dbus-send")!,
                [
                    "--session", "--print-reply", "--dest=org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
                    "org.simplylock.Test.Click", "string:\(path.joined(separator: " / "))",
                ], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
            try #require(result.status == 0, "\(result)")
        }
    }

    /// One reading of the icon by the watcher: why it read it, the item's properties (those the
    /// tests check) and its menu; a reading that failed has only `why`.
    struct Snapshot: Decodable {
        /// The tooltip, a D-Bus struct (icon name, pixmaps, title, text) written as an array.
        struct ToolTip: Decodable {
            var title: String

            init(from decoder: Decoder) throws {
                var fields = try decoder.unkeyedContainer()
                _ = try fields.decode(String.self)
                _ = try fields.decode(Ignored.self)
                title = try fields.decode(String.self)
            }
        }

        /// A value read past.
        private struct Ignored: Decodable {
            init(from decoder: Decoder) throws {}
        }

        /// A dbusmenu item and what it holds.
        struct MenuItem: Decodable {
            var label: String?
            var enabled: Bool?
            var children: [MenuItem]
        }

        var why: String
        var title: String?
        var status: String?
        var id: String?
        var iconName: String?
        var itemIsMenu: Bool?
        var toolTip: ToolTip?
        var menu: MenuItem?

        enum CodingKeys: String, CodingKey {
            case why, menu
            case title = "Title", status = "Status", id = "Id", iconName = "IconName", itemIsMenu = "ItemIsMenu", toolTip = "ToolTip"
        }
    }

    /// Every label of a snapshot's menu, with its enabled flag, as "a / b" paths.
    static func labels(_ snapshot: Snapshot) -> [String: Bool] {
        var found: [String: Bool] = [:]
        func walk(_ node: Snapshot.MenuItem, _ prefix: String) {
            for child in node.children {
                guard let label = child.label else { continue }
                let path = prefix.isEmpty ? label : prefix + " / " + label
                found[path] = child.enabled ?? true
                walk(child, path)
            }
        }
        if let menu = snapshot.menu { walk(menu, "") }
        return found
    }

    static func sessions(_ daemon: DaemonProcess) throws -> [SessionInfo] {
        try daemon.decode(StatusResponse.self, "status").sessions
    }

    @Test("the icon registers, shows the blocks, starts and stops one from its menu, and registers again with a new watcher")
    func trayFollowsTheDaemon() throws {
        let root = try TestRoot()
        let desktop = try NotifierTests.Desktop(root: root)
        var watcher = try Watcher(root: root, desktop: desktop)
        let daemon = try DaemonProcess(root: root)
        let log = root.path + "/notify.log"
        let notifier = try NotifierTests.notifier(["--root", root.path, "--length", "30m"], desktop: desktop, log: log)
        defer {
            notifier.send(SIGTERM)
            _ = notifier.wait(timeout: 5)
        }
        let idle = try watcher.waitFor("the icon to say nothing is blocked") { $0.title == "SimplyLock: nothing blocked" }
        #expect(idle.status == "Passive")
        #expect(idle.id == "simplylock" && idle.itemIsMenu == true)
        #expect(Self.labels(idle)["Start a block (30m) / news"] == true, "\(Self.labels(idle))")
        #expect(Self.labels(idle)["Start a Pomodoro / news"] == true)

        // A menu item starts a block in the real daemon.
        try watcher.click("Start a block (30m)", "news")
        try waitUntil("news blocked") { try Self.sessions(daemon).contains { $0.profile == "news" } }
        let news = try #require(try Self.sessions(daemon).first { $0.profile == "news" })
        #expect((1790...1800).contains(news.remainingSeconds), "\(news)")
        let blocked = try watcher.waitFor("the icon to show the block") { $0.title?.contains("news blocked until") == true }
        #expect(blocked.status == "Active" && blocked.iconName == "changes-prevent")
        #expect(blocked.toolTip?.title.hasPrefix("news blocked until") == true, "\(String(describing: blocked.toolTip))")
        let stopNews = try #require(Self.labels(blocked).keys.first { $0.hasPrefix("Stop news") })

        // A strict block is shown, not offered to stop.
        #expect(try daemon.lockctl("start", "social", "1h", "--strict").status == 0)
        let both = try watcher.waitFor("the icon to show two blocks") { $0.title?.contains("2 blocks") == true }
        let labels = Self.labels(both)
        #expect(!labels.keys.contains { $0.hasPrefix("Stop social") }, "\(labels)")
        #expect(labels.first { $0.key.hasPrefix("social until") && $0.key.hasSuffix("(strict)") }?.value == false, "\(labels)")

        try watcher.click(stopNews)
        try waitUntil("news stopped") { try !Self.sessions(daemon).contains { $0.profile == "news" } }
        try watcher.waitFor("the icon to show social alone") { $0.title?.contains("social blocked until") == true }

        // The Pomodoro from the menu, and stopped from it.
        try watcher.click("Start a Pomodoro", "gaming")
        try waitUntil("the Pomodoro to run") { try daemon.decode(PomodoroInfo.self, "pomodoro", "status").state == "running" }
        try watcher.waitFor("the menu to offer to stop it") { Self.labels($0)["Stop Pomodoro gaming"] == true }
        try watcher.click("Stop Pomodoro gaming")
        try waitUntil("the Pomodoro to stop") { try daemon.decode(PomodoroInfo.self, "pomodoro", "status").state != "running" }
        try watcher.waitFor("the menu to offer a Pomodoro again") { Self.labels($0)["Start a Pomodoro / gaming"] == true }

        // The panel restarts: the icon registers with the new watcher and shows the same.
        watcher.stop()
        watcher = try Watcher(root: root, desktop: desktop, name: "watcher2")
        let again = try watcher.waitFor("the icon to register again") { $0.title?.contains("social blocked until") == true }
        #expect(again.why == "registered")

        // The daemon goes away: the icon says so, and neither blocked nor free.
        _ = try daemon.stop()
        let gone = try watcher.waitFor("the icon to say the daemon is gone") { $0.status == "NeedsAttention" }
        #expect(gone.title == "SimplyLock: simplylockd is not reachable")
        #expect(Self.labels(gone).keys.sorted() == ["Open SimplyLock", "simplylockd is not running"])
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("registered with the StatusNotifierWatcher"), "\(text)")
    }

    @Test("Extend on a block's notification extends it; a strict block's notification has no Stop")
    func notificationButtons() throws {
        let root = try TestRoot()
        let desktop = try NotifierTests.Desktop(root: root, invoke: "extend")
        let daemon = try DaemonProcess(root: root)
        let log = root.path + "/notify.log"
        let notifier = try NotifierTests.notifier(["--root", root.path, "--no-tray", "--extend-by", "20m"], desktop: desktop, log: log)
        defer {
            notifier.send(SIGTERM)
            _ = notifier.wait(timeout: 5)
        }
        try waitUntil("notify to follow the daemon") { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("following") }
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        try desktop.waitFor("news is blocked")
        let shown = try #require(desktop.notifications().first { $0.summary == "news is blocked" })
        #expect(shown.actions == ["extend", "Extend 20m", "stop", "Stop", "open", "Open SimplyLock"])
        #expect(shown.hints["category"] == .text("x-simplylock.block") && shown.hints["desktop-entry"] == .text("simplylock"))
        // The recorder presses Extend; the daemon lengthens the block by 20 minutes.
        try desktop.waitFor("news block extended")
        let news = try #require(try Self.sessions(daemon).first { $0.profile == "news" })
        #expect((29 * 60...30 * 60).contains(news.remainingSeconds), "\(news)")

        #expect(try daemon.lockctl("start", "social", "10m", "--strict").status == 0)
        try desktop.waitFor("social is blocked")
        let strict = try #require(desktop.notifications().first { $0.summary == "social is blocked" })
        #expect(strict.actions == ["extend", "Extend 20m", "open", "Open SimplyLock"])
    }

    @Test("without a session bus notify says so and how to get one")
    func noSessionBus() throws {
        var environment = ProcessRunner.environment()
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = nil
        let child = try ChildProcess(
            Binaries.lockctl, ["notify", "--socket", "/nonexistent.sock"], environment: environment, stdout: .pipe, stderr: .pipe)
        let status = child.wait(timeout: 10)
        let (_, errors) = child.output()
        let text = String(decoding: errors, as: UTF8.self)
        #expect(status == 7, "\(text)")
        #expect(text.contains("no session bus") && text.contains("No medium found"), "\(text)")
        #expect(text.contains("hint: run it in your desktop session"), "\(text)")
    }
}

/// The desktop entry notifications name (`desktop-entry=simplylock`, seen by the recorder above),
/// as `make install` writes it (MakeInstallTests checks it is installed).
@Suite("the desktop entry")
struct DesktopEntryFileTests {
    static let missing: String? = TestTools.missing {
        TestTools.which("desktop-file-validate") == nil ? "desktop-file-validate is not installed (Debian package desktop-file-utils)" : nil
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func validates() throws {
        let root = try TestRoot(hosts: "")
        let template = try String(contentsOfFile: TestTools.repository + "/desktop/simplylock.desktop.in", encoding: .utf8)
        let entry = root.path + "/simplylock.desktop"
        try template.replacingOccurrences(of: "@bindir@", with: "/usr/local/bin").write(toFile: entry, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(TestTools.which("desktop-file-validate")!, [entry])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
        #expect(template.contains("\nExec=@bindir@/lockctl ui\n"))
    }
}
