import Foundation
import Glibc
import TestSupport
import Testing

/// The app walls' harder cases end to end (issue 23): the real daemon with `--enforcers
/// hosts,apps`, the real lockctl, every attempt as nobody, in a private mount namespace whose own
/// tmpfs filesystems are the only ones marked (`Tests/Scripts/appwall-daemon.sh`).
@Suite struct AppWallTests {
    /// Why the namespace test cannot run here, or nil: a missing tool is a skip only outside CI;
    /// no root or no fanotify (a container) is a skip everywhere.
    static let unavailableReason: String? =
        TestTools.unsupported {
            if getuid() != 0 { return "needs root (mount namespaces, fanotify, setpriv)" }
            if access("/lib64/ld-linux-x86-64.so.2", X_OK) != 0 { return "no x86-64 dynamic loader" }
            return FakeGame.fanotifyUnavailableReason.map { "fanotify permission events are not available here: \($0)" }
        }
        ?? TestTools.missing {
            let tools = ["/usr/bin/unshare", "/usr/bin/timeout", "/usr/bin/setpriv", "/usr/bin/python3", "/usr/bin/gcc", "/bin/dash"]
            return tools.first { access($0, X_OK) != 0 }.map { "\($0) is missing" }
        }

    @Test(
        "root-made copies of the loader, dash and python3 under other names cannot run a blocked game or script but run others; a game started through one before the block is stopped; with the daemon stopped the sentinel refuses the game to them within the bound and lets cat read it; during a strict block a copy started from a tmpfs of a new user and mount namespace is stopped within about a second and later execs from there are refused",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func wallsHoldAgainstAnOrdinaryUser() throws {
        if let reason = Self.unavailableReason { print("AppWallTests skipped: \(reason)") }
        let root = try TestRoot()
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            ["-m", TestTools.repository + "/Tests/Scripts/appwall-daemon.sh", root.path, Binaries.directory, Binaries.dataDirectory],
            timeout: 180)
        let lines = result.stdout.split(separator: "\n")
        let failures = lines.filter { $0.hasPrefix("not ok") }
        let log = (try? String(contentsOfFile: root.path + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result.stderr)\ndaemon log (end):\n\(log.suffix(4000))")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 22, "\(result.stdout)")
    }
}
