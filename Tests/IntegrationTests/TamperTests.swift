import Foundation
import Glibc
import Testing

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
        #expect(Int((enforcer["details"] as? [String: String])?["restores"] ?? "0") ?? 0 >= 3)
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
