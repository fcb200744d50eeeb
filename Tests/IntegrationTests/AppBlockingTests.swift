import Foundation
import Glibc
import TestSupport
import Testing

/// App blocking end to end: the real daemon with `--enforcers hosts,apps`, driven by the real
/// lockctl, in a private mount namespace (`Tests/Scripts/apps-daemon.sh`).
@Suite struct AppBlockingTests {
    /// Why the namespace test cannot run here, or nil.
    static let unavailableReason: String? = {
        if getuid() != 0 { return "needs root (mount namespaces, fanotify)" }
        for tool in ["/usr/bin/unshare", "/usr/bin/timeout", "/usr/bin/python3"] where access(tool, X_OK) != 0 {
            return "\(tool) is missing"
        }
        if FakeGame.binary == nil { return "cannot build the static fake game (gcc -static)" }
        return FakeGame.fanotifyUnavailableReason.map { "fanotify permission events are not available here: \($0)" }
    }()

    @Test(
        "apps are blocked at exec through the daemon: denied during a block, a running instance terminated, allowed after stop, never hanging after SIGKILL; the proc connector where asked",
        .enabled(if: unavailableReason == nil, Comment(rawValue: unavailableReason ?? "")))
    func blocksAppsThroughTheDaemon() throws {
        let root = try TestRoot()
        let game = try #require(FakeGame.binary)
        let result = try ProcessRunner.run(
            "/usr/bin/unshare",
            [
                "-m", TestTools.repository + "/Tests/Scripts/apps-daemon.sh", root.path,
                Binaries.directory, Binaries.dataDirectory, game,
            ], timeout: 240)
        let lines = result.stdout.split(separator: "\n")
        let failures = lines.filter { $0.hasPrefix("not ok") }
        let log = (try? String(contentsOfFile: root.path + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(result.stderr)\ndaemon log (end):\n\(log.suffix(4000))")
        #expect(lines.filter { $0.hasPrefix("ok") }.count == 27, "\(result.stdout)")
    }
}
