import Foundation
import Glibc
import TestSupport
import Testing

/// The apps row of `lockctl status` while an open limit counts a profile's apps that nothing
/// blocks: the real daemon with `--enforcers hosts,apps` and the real lockctl, in a private mount
/// namespace (`Tests/Scripts/status-apps-row.sh`).
@Suite struct StatusAppsRowTests {
    /// Why the namespace test cannot run here, or nil: a missing tool is a skip only outside CI;
    /// no root or no fanotify (a container) is a skip everywhere.
    static let unavailableReason: String? =
        TestTools.unsupported {
            if getuid() != 0 { return "needs root (mount namespaces, fanotify)" }
            return FakeGame.fanotifyUnavailableReason.map { "fanotify permission events are not available here: \($0)" }
        }
        ?? TestTools.missing {
            (["/usr/bin/unshare", "/usr/bin/python3", "/usr/bin/gcc"] as [String]).first { access($0, X_OK) != 0 }.map {
                "\($0) is missing"
            }
        }

    @Test(
        "the row says the launches of an app an open limit counts are counted (not \"0 programs\"), NOT counted under the proc connector, and claims nothing once the allowance is gone",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func countedAppsAreSaidInTheAppsRow() throws {
        if let reason = Self.unavailableReason { print("StatusAppsRowTests skipped: \(reason)") }
        let root = try TestRoot()
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            ["-m", TestTools.repository + "/Tests/Scripts/status-apps-row.sh", root.path, Binaries.directory, Binaries.dataDirectory],
            timeout: 120)
        let lines = result.stdout.split(separator: "\n")
        let failures = lines.filter { $0.hasPrefix("not ok") }
        let log = (try? String(contentsOfFile: root.path + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result.stderr)\ndaemon log (end):\n\(log.suffix(4000))")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 9, "\(result.stdout)")
    }
}
