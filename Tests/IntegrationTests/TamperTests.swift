import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

@Suite("The hosts section is restored when tampered with")
struct TamperTests {
    // Latencies are measured by `everyKind` below; these waits allow for a saturated machine.
    @Test("edited, replaced or deleted while a block is active: restored")
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
        try waitUntil("an in-place edit to be undone", timeout: 5) { root.hosts() == expected }

        // Replace by rename, as editors do, with an extra user line.
        let replacement = root.path + "/etc/hosts.new"
        try Data("192.168.1.1 router\n".utf8).write(to: URL(fileURLWithPath: replacement))
        #expect(rename(replacement, root.hostsPath) == 0)
        try waitUntil("a replaced file to get its section back", timeout: 5) {
            root.hosts().hasPrefix("192.168.1.1 router\n# BEGIN simplylock\n") && root.hosts().contains(" facebook.com")
        }

        // Delete.
        #expect(unlink(root.hostsPath) == 0)
        try waitUntil("a deleted file to be recreated with the section", timeout: 5) { root.hosts().contains(" facebook.com") }
        let enforcer = try #require(try daemon.decode(StatusResponse.self, "status").enforcers.first)
        #expect(enforcer.details["restores"]?.number ?? 0 >= 3)
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

/// One kind of tampering with the hosts file, as someone at a root shell would do it.
struct Tampering: Sendable, CustomStringConvertible {
    let description: String
    let act: @Sendable (TestRoot) throws -> Void

    /// Replaces the file by rename with `edit` applied to its lines, as `sed -i` does.
    static func sed(_ name: String, _ edit: @escaping @Sendable ([String]) -> [String]) -> Tampering {
        Tampering(description: name) { root in
            let lines = root.hosts().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            try Tampering.replace(root, with: edit(lines).joined(separator: "\n"))
        }
    }

    static func replace(_ root: TestRoot, with text: String) throws {
        let temporary = root.path + "/etc/sed.tmp"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, root.hostsPath) == 0 else { throw TestFailure("rename failed") }
    }

    static func check(_ result: Int32, _ what: String) throws {
        if result != 0 { throw TestFailure("\(what): \(String(cString: strerror(errno)))") }
    }

    static let all: [Tampering] = [
        Tampering(description: "edit in place") { root in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root.hostsPath))
            let edited = root.hosts().replacingOccurrences(of: " facebook.com facebook.com.", with: "")
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(edited.utf8))
            try handle.close()
        },
        Tampering(description: "truncate") { root in try check(truncate(root.hostsPath, 0), "truncate") },
        Tampering(description: "empty line") { root in try Data("\n".utf8).write(to: URL(fileURLWithPath: root.hostsPath)) },
        Tampering(description: "delete") { root in try check(unlink(root.hostsPath), "unlink") },
        sed("replace by rename, section cut") { lines in
            guard let begin = lines.firstIndex(of: "# BEGIN simplylock"), let end = lines.firstIndex(of: "# END simplylock") else {
                return lines
            }
            return Array(lines[..<begin] + lines[(end + 1)...])
        },
        Tampering(description: "chmod 000") { root in try check(chmod(root.hostsPath, 0), "chmod") },
        Tampering(description: "chown nobody") { root in try check(chown(root.hostsPath, 65534, 65534), "chown") },
        Tampering(description: "symlink to a 0600 file") { root in
            let secret = root.path + "/secret-\(UUID().uuidString)"
            try Data("10.6.6.6 secret.example # private\n".utf8).write(to: URL(fileURLWithPath: secret))
            try check(chmod(secret, 0o600), "chmod")
            let link = root.path + "/etc/link.tmp"
            try check(symlink(secret, link), "symlink")
            try check(rename(link, root.hostsPath), "rename")
        },
        Tampering(description: "directory in place") { root in
            try check(unlink(root.hostsPath), "unlink")
            try check(mkdir(root.hostsPath, 0o755), "mkdir")
        },
        Tampering(description: "FIFO in place") { root in
            try check(unlink(root.hostsPath), "unlink")
            try check(mkfifo(root.hostsPath, 0o644), "mkfifo")
        },
        sed("a line inside the section") { $0.flatMap { $0 == "# BEGIN simplylock" ? [$0, "# note"] : [$0] } },
        sed("a second END after BEGIN") { $0.flatMap { $0 == "# BEGIN simplylock" ? [$0, "# END simplylock"] : [$0] } },
        sed("a duplicated BEGIN") { $0.flatMap { $0 == "# BEGIN simplylock" ? [$0, $0] : [$0] } },
        sed("BEGIN deleted") { $0.filter { $0 != "# BEGIN simplylock" } },
        sed("END deleted") { $0.filter { $0 != "# END simplylock" } },
        sed("both markers deleted (sed /simplylock/d)") { $0.filter { !$0.contains("simplylock") } },
    ]
}

@Suite("Every kind of tampering with the hosts file is undone")
struct TamperKindsTests {
    static let trials = Int(ProcessInfo.processInfo.environment["SIMPLYLOCK_TAMPER_TRIALS"] ?? "") ?? 3

    /// The file is the one written, a regular file of mode 0644 owned by root (when we are).
    static func intact(_ root: TestRoot, _ expected: [UInt8]) -> Bool {
        var info = stat()
        guard lstat(root.hostsPath, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0o644 else { return false }
        if getuid() == 0, info.st_uid != 0 || info.st_gid != 0 { return false }
        return root.hostsBytes() == expected
    }

    /// The file's type, mode and content, without opening anything but a regular file.
    static func describe(_ root: TestRoot) -> String {
        var info = stat()
        guard lstat(root.hostsPath, &info) == 0 else { return "(missing)" }
        guard info.st_mode & S_IFMT == S_IFREG else { return "(not a regular file: mode \(String(info.st_mode, radix: 8)))" }
        return "mode \(String(info.st_mode & 0o7777, radix: 8)) owner \(info.st_uid):\(info.st_gid)\n" + root.hosts()
    }

    // Issue 9, items 9–11: deleting or truncating lost the user's lines, a line inside the
    // section or a second marker left our lines behind, and modes, symlinks and directories
    // were not repaired.
    // The one-second goal is a latency figure, printed below; the assertion allows for a saturated
    // machine running the whole suite in parallel, where a restore has been seen to take 1.4 s.
    @Test("each kind restored (latencies printed), the user's lines intact, mode 0644; gone cleanly when the block ends")
    func everyKind() throws {
        let user = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# user comment\n10.0.0.1 printer\n"
        let root = try TestRoot(hosts: user)
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "social", "10m").status == 0)
        let expected = root.hostsBytes()
        #expect(String(decoding: expected, as: UTF8.self).hasPrefix(user + "# BEGIN simplylock\n"))
        var report: [String] = []
        var tampers = 0
        for kind in Tampering.all {
            var latencies: [Double] = []
            for _ in 0..<Self.trials {
                try kind.act(root)
                tampers += 1
                let start = Date()
                while !Self.intact(root, expected), Date().timeIntervalSince(start) < 5 { usleep(2_000) }
                let latency = Date().timeIntervalSince(start)
                #expect(
                    Self.intact(root, expected), "\(kind): not restored after 5 s:\n\(Self.describe(root))\n\(daemon.log().suffix(2000))")
                latencies.append(latency * 1000)
                // The watch settles before it reads: let the restore's own events pass.
                usleep(250_000)
            }
            latencies.sort()
            report.append(
                "\(kind.description): min \(Int(latencies.first!)) ms, median \(Int(latencies[latencies.count / 2])) ms, max \(Int(latencies.last!)) ms"
            )
        }
        print("restore latency over \(Self.trials) trials per kind:\n  " + report.joined(separator: "\n  "))

        let enforcer = try #require(try daemon.decode(StatusResponse.self, "status").enforcers.first)
        #expect(enforcer.details["restores"]?.number ?? 0 >= Double(tampers))
        let moved = try FileManager.default.contentsOfDirectory(atPath: root.path + "/etc").filter {
            $0.hasPrefix("hosts.simplylock-moved-")
        }
        #expect(!moved.isEmpty)
        #expect(try daemon.lockctl("check", "facebook.com").status == 0)

        #expect(try daemon.lockctl("stop", "social").status == 0)
        #expect(root.hosts() == user)
        #expect(try daemon.lockctl("check", "facebook.com").status == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: root.path + "/etc")
            .filter { $0 != "hosts" && !$0.hasPrefix("hosts.simplylock-moved-") }
        #expect(left.isEmpty, "\(left)")
        // While nothing is blocked the file is the user's: an edit stays as it is.
        try Data("127.0.0.1 localhost\n".utf8).write(to: URL(fileURLWithPath: root.hostsPath))
        usleep(500_000)
        #expect(root.hosts() == "127.0.0.1 localhost\n")
        #expect(access(root.path + "/var/lib/simplylock/hosts.user", F_OK) != 0)
    }

    @Test("the user's lines come back after a crash and an emptied file")
    func userLinesSurviveARestart() throws {
        let root = try TestRoot()
        let user = root.hosts()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        let expected = root.hosts()
        try daemon.kill9()
        #expect(truncate(root.hostsPath, 0) == 0)
        try daemon.restart()
        #expect(root.hosts() == expected)
        #expect(try daemon.lockctl("stop", "news").status == 0)
        #expect(root.hosts() == user)
    }

    // Issue 9, item 13: temporary files left by kills piled up (45 after 640 kills).
    @Test("temporary files left by a crash are removed at start, nothing else")
    func leftoversRemovedAtStart() throws {
        let root = try TestRoot()
        for file in [
            "etc/.hosts.simplylock-Ab12Cd", "etc/simplylock/profiles.d/.focus.toml.simplylock-Zz9Yy8",
            "etc/simplylock/schedules.d/.mornings.toml.simplylock-Q1w2E3", "var/lib/simplylock/.hosts.user.simplylock-R4t5Y6",
            "etc/.hosts.simplylock-keepme1", "etc/simplylock/profiles.d/keep.txt",
        ] {
            try root.write(file, "left behind")
        }
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        for gone in [
            "etc/.hosts.simplylock-Ab12Cd", "etc/simplylock/profiles.d/.focus.toml.simplylock-Zz9Yy8",
            "etc/simplylock/schedules.d/.mornings.toml.simplylock-Q1w2E3", "var/lib/simplylock/.hosts.user.simplylock-R4t5Y6",
        ] {
            #expect(access(root.path + "/" + gone, F_OK) != 0, "\(gone) is still there")
        }
        for kept in ["etc/.hosts.simplylock-keepme1", "etc/simplylock/profiles.d/keep.txt"] {
            #expect(access(root.path + "/" + kept, F_OK) == 0, "\(kept) was removed")
        }
    }

    // Issue 9, item 11: doctor said "ok" whatever other users could read.
    @Test("doctor checks what other users' resolvers can read")
    func doctorSeesWhatOthersSee() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        #expect(try daemon.lockctl("doctor").stdout.contains("ok       hosts file"))
        #expect(chmod(root.path + "/etc", 0o700) == 0)
        defer { chmod(root.path + "/etc", 0o755) }
        let result = try daemon.lockctl("doctor")
        #expect(result.status == 1)
        #expect(result.stdout.contains("cannot be searched by other users"), "\(result.stdout)")
    }
}

@Suite("A hosts file that cannot be replaced")
struct BindMountTests {
    @Test(
        "a bind-mounted hosts file (rename impossible) is written in place, never damaged",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            "needs root and unshare -m for a private mount namespace"))
    func bindMountedHosts() throws {
        let root = try TestRoot(hosts: "127.0.0.1 under-the-mount\n")
        let source = root.path + "/mounted-hosts"
        try Data("127.0.0.1 localhost\n# container hosts\n".utf8).write(to: URL(fileURLWithPath: source))
        // Like a container: /etc/hosts is a bind mount, so rename over it fails with EBUSY.
        let wrapper = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
            "mount --bind '\(source)' '\(root.hostsPath)' && exec \"$0\" \"$@\"",
        ]
        let daemon = try DaemonProcess(root: root, wrapper: wrapper)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        let mounted = try String(contentsOfFile: source, encoding: .utf8)
        #expect(mounted.hasPrefix("127.0.0.1 localhost\n# container hosts\n# BEGIN simplylock\n"))
        #expect(mounted.contains(" news.ycombinator.com"))
        #expect(root.hosts() == "127.0.0.1 under-the-mount\n")
        let enforcer = try #require(try daemon.decode(StatusResponse.self, "status").enforcers.first)
        #expect(enforcer.details["write"] == .text("inPlace"))
        #expect(try daemon.lockctl("stop", "news").status == 0)
        #expect(try String(contentsOfFile: source, encoding: .utf8) == "127.0.0.1 localhost\n# container hosts\n")
    }
}
