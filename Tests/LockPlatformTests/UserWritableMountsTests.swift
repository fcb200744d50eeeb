import Foundation
import Glibc
import LockPlatform
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
