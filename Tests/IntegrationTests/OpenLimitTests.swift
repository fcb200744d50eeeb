import Foundation
import Glibc
import TestSupport
import Testing

/// Open limits end to end (`lockctl allowances add … --opens N --cooldown D`): the real daemon
/// with `--enforcers hosts,apps`, the real lockctl, launches as nobody, in a private mount
/// namespace (`Tests/Scripts/openlimits-daemon.sh`).
@Suite struct OpenLimitTests {
    /// Why the namespace test cannot run here, or nil.
    /// Why the namespace test cannot run here, or nil: a missing tool is a skip only outside CI;
    /// no root or no fanotify (a container) is a skip everywhere.
    static let unavailableReason: String? =
        TestTools.unsupported {
            if getuid() != 0 { return "needs root (mount namespaces, fanotify, setpriv)" }
            return FakeGame.fanotifyUnavailableReason.map { "fanotify permission events are not available here: \($0)" }
        }
        ?? TestTools.missing {
            let tools: [String] = ["/usr/bin/unshare", "/usr/bin/timeout", "/usr/bin/setpriv", "/usr/bin/python3", "/usr/bin/gcc"]
            return tools.first {
                access($0, X_OK) != 0
            }.map { "\($0) is missing" }
        }

    @Test(
        "--opens 2 lets two launches run and refuses the third in the kernel, also after a restart; execs within a running app are not launches; a cooldown refuses a relaunch within it and allows one after; with the daemon stopped a strict allowance's launch is refused and another's allowed within the bound",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func opensAndCooldownThroughTheDaemon() throws {
        if let reason = Self.unavailableReason { print("OpenLimitTests skipped: \(reason)") }
        let root = try TestRoot()
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            ["-m", TestTools.repository + "/Tests/Scripts/openlimits-daemon.sh", root.path, Binaries.directory, Binaries.dataDirectory],
            timeout: 120)
        let lines = result.stdout.split(separator: "\n")
        let failures = lines.filter { $0.hasPrefix("not ok") }
        let log = (try? String(contentsOfFile: root.path + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result.stderr)\ndaemon log (end):\n\(log.suffix(4000))")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 30, "\(result.stdout)")
    }
}
