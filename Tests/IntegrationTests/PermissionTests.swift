import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// Running lockctl as another user needs root (to switch) and setpriv (util-linux).
let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

@Suite("Peer-credential authorisation")
struct PermissionTests {
    @Test(
        "another uid may read the status but not change anything",
        .enabled(if: canSwitchUser, "needs root and /usr/bin/setpriv to run lockctl as uid 65534"))
    func otherUserRefused() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.lockctl, "--root", root.path]
        let status = try ProcessRunner.run("/usr/bin/setpriv", asNobody + ["status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("news"))
        let stop = try ProcessRunner.run("/usr/bin/setpriv", asNobody + ["stop", "news"])
        #expect(stop.status == 4, "\(stop)")
        #expect(stop.stderr.contains("permission denied"))
        let start = try ProcessRunner.run("/usr/bin/setpriv", asNobody + ["start", "social", "5m"])
        #expect(start.status == 4)
        #expect(try daemon.decode(StatusResponse.self, "status").sessions.count == 1)
    }
}
