import Foundation
import Glibc
import LockPlatform
import TestSupport
import Testing

@Suite struct UserWritableMountsTests {
    @Test func findsMountsUsersCanWriteToFromTheTable() throws {
        var template = Array("/tmp/mounts-XXXXXX".utf8CString)
        let root = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (name, mode) in [("open", 0o1777), ("closed", 0o755), ("with space", 0o777)] as [(String, mode_t)] {
            mkdir(root + "/" + name, mode)
            chmod(root + "/" + name, mode)
        }
        let table = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw
            30 22 0:40 / \(root)/open rw,nosuid,nodev - tmpfs tmpfs rw
            31 22 0:41 / \(root)/closed rw - tmpfs tmpfs rw,mode=755
            32 22 0:42 / \(root)/with\\040space rw - tmpfs tmpfs rw
            33 22 0:43 / \(root)/closed/app rw,nosuid,nodev - fuse.squashfuse squashfuse rw,user_id=1000
            34 22 0:44 / /elsewhere/open rw - tmpfs tmpfs rw
            """
        let found = UserWritableMounts.find(mountinfo: table, extra: [], scope: [root])
        #expect(found == [root + "/open", root + "/with space", root + "/closed/app"])
        // Outside the scope nothing counts, not even the machine's own filesystems.
        #expect(UserWritableMounts.find(mountinfo: table, extra: [], scope: []).isEmpty)
        #expect(UserWritableMounts.find(mountinfo: table, extra: [root + "/closed"], scope: [root]).contains(root + "/closed"))
    }
}

/// A tmpfs an ordinary user mounts after `unshare -Urm` is found through `/proc/PID/root`, with
/// the device its mountinfo gives, which is the one a `stat` through that path sees.
@Suite struct ForeignMountsTests {
    @Test(.enabled(if: getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0, "needs root and setpriv"))
    func findsAUsersTmpfsInAnotherNamespace() throws {
        var template = Array("/tmp/foreign-XXXXXX".utf8CString)
        let root = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o755)
        mkdir(root + "/ns", 0o755)
        chown(root + "/ns", 65534, 65534)
        let holder = try ChildProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "-Urm", "sh", "-c",
                "mount -t tmpfs tmpfs \(root)/ns && touch \(root)/ns/ready && exec sleep 60",
            ], environment: ProcessRunner.environment())
        defer {
            holder.send(SIGKILL)
            _ = holder.wait(timeout: 10)
        }
        var found: [ForeignMounts.Mount] = []
        try waitUntil("the namespace's tmpfs is found") {
            found = ForeignMounts.find(extra: [], scope: [root])
            return found.contains { access($0.path + "/ready", F_OK) == 0 }
        }
        #expect(found.count == 1, "\(found)")
        let mount = try #require(found.first)
        #expect(mount.path.hasPrefix("/proc/") && mount.path.hasSuffix("/root\(root)/ns"), "\(mount.path)")
        var status = stat()
        #expect(stat(mount.path + "/ready", &status) == 0 && UInt64(status.st_dev) == mount.device)
        // Not mounted here, and nothing outside the scope counts.
        #expect(stat(root + "/ns/ready", &status) != 0)
        #expect(ForeignMounts.find(extra: [], scope: [root + "/elsewhere"]).isEmpty)
    }
}
