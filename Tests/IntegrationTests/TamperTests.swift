import Foundation
import Glibc
import Testing
import TestSupport

@Suite("The hosts section is restored when tampered with")
struct TamperTests {
    @Test("edited, replaced or deleted while a block is active: restored within a second")
    func restoresAfterTampering() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "social", "10m").status == 0)
        let expected = root.hosts()

        // Edit in place: the section is cut out, the user's own lines are kept.
        let edited = expected.replacingOccurrences(of: " facebook.com", with: "")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root.hostsPath))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(edited.utf8))
        try handle.close()
        try waitUntil("an in-place edit to be undone", timeout: 1) { root.hosts() == expected }

        // Replace by rename, as editors do, with an extra user line.
        let replacement = root.path + "/etc/hosts.new"
        try Data("192.168.1.1 router\n".utf8).write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, root.hostsPath) == 0)
        try waitUntil("a replaced file to get its section back", timeout: 1) {
            root.hosts().hasPrefix("192.168.1.1 router\n# BEGIN simplylock\n") && root.hosts().contains(" facebook.com")
        }

        // Delete.
        #expect(unlink(root.hostsPath) == 0)
        try waitUntil("a deleted file to be recreated with the section", timeout: 1) { root.hosts().contains(" facebook.com") }
        let report = try daemon.json("status")
        let enforcer = try #require((report["enforcers"] as? [[String: Any]])?.first)
        #expect((enforcer["details"] as? [String: Any])?["restores"] as? Int ?? 0 >= 3)
    }

    @Test("user edits outside the section are kept while the block runs and after it ends")
    func userEditsKept() throws {
        let root = try TestRoot(hosts: "127.0.0.1\tlocalhost")
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "gaming", "10m").status == 0)
        #expect(root.hosts().hasPrefix("127.0.0.1\tlocalhost\n# BEGIN simplylock\n"))
        #expect(try daemon.lockctl("stop", "gaming").status == 0)
        #expect(root.hostsBytes() == Array("127.0.0.1\tlocalhost".utf8))
    }
}

@Suite("A hosts file that cannot be replaced")
struct BindMountTests {
    @Test("a bind-mounted hosts file (rename impossible) is written in place, never damaged",
          .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
                   "needs root and unshare -m for a private mount namespace"))
    func bindMountedHosts() throws {
        let root = try TestRoot(hosts: "127.0.0.1 under-the-mount\n")
        let source = root.path + "/mounted-hosts"
        try Data("127.0.0.1 localhost\n# container hosts\n".utf8).write(to: URL(fileURLWithPath: source))
        // Like a container: /etc/hosts is a bind mount, so rename over it fails with EBUSY.
        let wrapper = ["/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
                       "mount --bind '\(source)' '\(root.hostsPath)' && exec \"$0\" \"$@\""]
        let daemon = try DaemonProcess(root: root, wrapper: wrapper)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        let mounted = try String(contentsOfFile: source, encoding: .utf8)
        #expect(mounted.hasPrefix("127.0.0.1 localhost\n# container hosts\n# BEGIN simplylock\n"))
        #expect(mounted.contains(" news.ycombinator.com"))
        #expect(root.hosts() == "127.0.0.1 under-the-mount\n")
        let enforcer = try #require((try daemon.json("status")["enforcers"] as? [[String: Any]])?.first)
        #expect((enforcer["details"] as? [String: Any])?["write"] as? String == "inPlace")
        #expect(try daemon.lockctl("stop", "news").status == 0)
        #expect(try String(contentsOfFile: source, encoding: .utf8) == "127.0.0.1 localhost\n# container hosts\n")
    }
}
