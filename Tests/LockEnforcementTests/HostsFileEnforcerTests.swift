import Foundation
import Glibc
import LockCore
import LockPlatform
import Logging
import TestSupport
import Testing

@testable import LockEnforcement

@Suite("HostsFileEnforcer on real files")
struct HostsFileEnforcerTests {
    static let user = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# my printer\n192.168.0.9 printer\n"
    static let block = DesiredBlock(domains: ["a.com", "www.a.com"])

    func enforcer(_ scratch: Scratch, copy: Bool = true) -> HostsFileEnforcer {
        HostsFileEnforcer(
            path: scratch.path + "/etc/hosts", alwaysWithBlock: ["use-application-dns.net"],
            userCopyPath: copy ? scratch.path + "/var/lib/simplylock/hosts.user" : nil,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        lstat(path, &info)
        return info.st_mode
    }

    /// A scratch root with the user's hosts file and a block applied.
    func blocked(copy: Bool = true) async throws -> (Scratch, HostsFileEnforcer, String) {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", Self.user)
        let enforcer = enforcer(scratch, copy: copy)
        try await enforcer.apply(Self.block)
        let expected = try #require(scratch.read("etc/hosts"))
        #expect(expected.hasPrefix(Self.user + "# BEGIN simplylock\n"))
        return (scratch, enforcer, expected)
    }

    // The mode used to be kept as found; a hosts file other users cannot read blocks nothing
    // for them, so the file written is always 0644 (issue 9, item 11).
    @Test func appliesAtomicallyWithAReadableMode() async throws {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", "127.0.0.1 localhost\n")
        chmod(scratch.path + "/etc/hosts", 0o640)
        let enforcer = enforcer(scratch, copy: false)
        try await enforcer.apply(DesiredBlock(domains: ["a.com", "www.a.com"]))
        let text = try #require(scratch.read("etc/hosts"))
        #expect(text.contains("0.0.0.0 a.com a.com. www.a.com www.a.com. use-application-dns.net use-application-dns.net."))
        #expect(mode(scratch.path + "/etc/hosts") & 0o7777 == 0o644)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/etc").filter { $0 != "hosts" }
        #expect(leftovers.isEmpty)
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == "127.0.0.1 localhost\n")
        #expect(await enforcer.status().applied)
    }

    @Test func unwritableDirectoryIsAnErrorNotADamagedFile() async throws {
        // Not even root can create a file below /dev/null.
        let enforcer = HostsFileEnforcer(path: "/dev/null/hosts", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        await #expect(throws: SystemError.self) { try await enforcer.apply(DesiredBlock(domains: ["a.com"])) }
        let report = await enforcer.status()
        #expect(!report.applied)
        #expect(report.lastError?.contains("/dev/null") == true)
    }

    // Issue 9, item 9: a deleted or truncated file came back with the section only.
    @Test(arguments: ["delete", "truncate", "newline", "blanks"])
    func deletedOrTruncatedFileComesBackWhole(how: String) async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let hosts = scratch.path + "/etc/hosts"
        switch how {
        case "delete": #expect(unlink(hosts) == 0)
        case "truncate": #expect(truncate(hosts, 0) == 0)
        case "newline": try scratch.write("etc/hosts", "\n")
        default: try scratch.write("etc/hosts", " \n\t\r\n")
        }
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == expected)
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == Self.user)
    }

    @Test func userEditsOutsideTheSectionAreRespected() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        // The user drops the printer, adds a line, and keeps the section.
        let edited = expected.replacingOccurrences(of: "# my printer\n192.168.0.9 printer\n", with: "10.0.0.2 nas\n")
        try scratch.write("etc/hosts", edited)
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == edited)
        // Their new lines are what a later truncation restores.
        #expect(truncate(scratch.path + "/etc/hosts", 0) == 0)
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == edited)
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == "127.0.0.1 localhost\n::1 localhost ip6-localhost\n10.0.0.2 nas\n")
    }

    @Test func emptyingTheFileWhileNothingIsBlockedIsTheUsersChoice() async throws {
        let (scratch, enforcer, _) = try await blocked()
        try await enforcer.apply(.empty)
        #expect(truncate(scratch.path + "/etc/hosts", 0) == 0)
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == "")
        try await enforcer.apply(Self.block)
        #expect(scratch.read("etc/hosts")?.hasPrefix("# BEGIN simplylock\n") == true)
    }

    // An editor that truncates and then writes within the settle time is editing, not
    // deleting: its new content is kept.
    @Test func editorTruncateThenWriteIsAnEdit() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let watching = Task { await enforcer.watch() }
        defer { watching.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        let edited = "10.0.0.3 laptop\n" + expected
        let fd = open(scratch.path + "/etc/hosts", O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        try await Task.sleep(for: .milliseconds(40))
        _ = edited.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        try await Task.sleep(for: .milliseconds(600))
        #expect(scratch.read("etc/hosts") == edited)
    }

    // Issue 9, item 11: after chmod 000 the content was right and the mode stayed 000.
    @Test func modeIsRepaired() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let hosts = scratch.path + "/etc/hosts"
        chmod(hosts, 0o000)
        await enforcer.restoreIfChanged()
        #expect(mode(hosts) & 0o7777 == 0o644)
        #expect(scratch.read("etc/hosts") == expected)
        #expect(await enforcer.status().details["lastRepair"]?.description == "mode")
        if getuid() == 0 {
            chown(hosts, 65534, 65534)
            await enforcer.restoreIfChanged()
            var info = stat()
            stat(hosts, &info)
            #expect(info.st_uid == 0 && info.st_gid == 0)
        }
    }

    // Issue 9, item 11: a symlink to a 0600 file had its target's content copied in and kept
    // the target's mode.
    @Test func symlinkIsReplacedWithoutReadingItsTarget() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let hosts = scratch.path + "/etc/hosts"
        try scratch.write("secret", "10.6.6.6 secret-host # private\n")
        chmod(scratch.path + "/secret", 0o600)
        #expect(unlink(hosts) == 0 && symlink(scratch.path + "/secret", hosts) == 0)
        await enforcer.restoreIfChanged()
        #expect(mode(hosts) & S_IFMT == S_IFREG)
        #expect(mode(hosts) & 0o7777 == 0o644)
        #expect(scratch.read("etc/hosts") == expected)
        #expect(scratch.read("secret") == "10.6.6.6 secret-host # private\n")
        #expect(mode(scratch.path + "/secret") & 0o7777 == 0o600)
    }

    // Issue 9, item 11: a directory in place of the file was never repaired.
    @Test func directoryIsMovedAsideNotDeleted() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let hosts = scratch.path + "/etc/hosts"
        #expect(unlink(hosts) == 0 && mkdir(hosts, 0o755) == 0)
        try scratch.write("etc/hosts/inside", "kept\n")
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == expected)
        let moved = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/etc").filter {
            $0.hasPrefix("hosts.simplylock-moved-")
        }
        #expect(moved.count == 1)
        let aside = try #require(moved.first)
        #expect(scratch.read("etc/\(aside)/inside") == "kept\n")
        #expect(await enforcer.status().details["lastRepair"]?.description == "directory")
    }

    @Test func fifoInPlaceNeitherBlocksNorStays() async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let hosts = scratch.path + "/etc/hosts"
        #expect(unlink(hosts) == 0 && mkfifo(hosts, 0o644) == 0)
        // Should a reader ever block on the FIFO, a writer arriving later lets it go, so that
        // the test fails instead of hanging.
        let release = Thread {
            Thread.sleep(forTimeInterval: 5)
            let fd = open(hosts, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        release.start()
        let start = Date()
        await enforcer.restoreIfChanged()
        #expect(Date().timeIntervalSince(start) < 4, "a reader waited for the writer")
        #expect(mode(hosts) & S_IFMT == S_IFREG)
        #expect(scratch.read("etc/hosts") == expected)
    }

    /// Edits as `sed -i SCRIPT` makes them, done line by line here.
    static let sedEdits: [(String, @Sendable ([String]) -> [String])] = [
        ("/simplylock/d", { $0.filter { !$0.contains("simplylock") } }),
        ("/^# BEGIN simplylock/a # note", { $0.flatMap { $0 == "# BEGIN simplylock" ? [$0, "# note"] : [$0] } }),
        ("/^# BEGIN simplylock/a # END simplylock", { $0.flatMap { $0 == "# BEGIN simplylock" ? [$0, "# END simplylock"] : [$0] } }),
        ("/^# END simplylock/i # BEGIN simplylock", { $0.flatMap { $0 == "# END simplylock" ? ["# BEGIN simplylock", $0] : [$0] } }),
        ("/^# END simplylock/d", { $0.filter { $0 != "# END simplylock" } }),
        ("/^# BEGIN simplylock/d", { $0.filter { $0 != "# BEGIN simplylock" } }),
    ]

    // Issue 9, item 10: a line inserted after BEGIN, a second END or a duplicated BEGIN left
    // `0.0.0.0` lines of ours in the file after the block ended.
    @Test(arguments: 0..<sedEdits.count)
    func damagedSectionIsRebuiltAndGoesAwayCleanly(edit: Int) async throws {
        let (scratch, enforcer, expected) = try await blocked()
        let lines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try scratch.write("etc/hosts", Self.sedEdits[edit].1(lines).joined(separator: "\n"))
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == expected, "sed -i '\(Self.sedEdits[edit].0)'")
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == Self.user, "sed -i '\(Self.sedEdits[edit].0)'")
    }

    // A user line of the very shape we write, for a name we never blocked, stays theirs.
    @Test func usersOwnTrailingDotLinesStay() async throws {
        let scratch = try Scratch()
        let user = Self.user + "0.0.0.0 mine.example mine.example.\n"
        try scratch.write("etc/hosts", user)
        let enforcer = enforcer(scratch)
        try await enforcer.apply(Self.block)
        let text = try #require(scratch.read("etc/hosts"))
        try scratch.write("etc/hosts", text.replacingOccurrences(of: "# BEGIN simplylock\n", with: ""))
        await enforcer.restoreIfChanged()
        #expect(scratch.read("etc/hosts") == text)
        try await enforcer.apply(.empty)
        #expect(scratch.read("etc/hosts") == user)
    }

    // The user's part survives a restart through the copy kept next to the state, which
    // exists only while a block is in force.
    @Test func userCopyCarriesTheUsersLinesAcrossARestart() async throws {
        let (scratch, first, expected) = try await blocked()
        let copy = scratch.path + "/var/lib/simplylock/hosts.user"
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == Self.user)
        #expect(mode(copy) & 0o7777 == 0o600)
        _ = first
        // The daemon dies; the file is emptied before it comes back.
        #expect(truncate(scratch.path + "/etc/hosts", 0) == 0)
        let second = enforcer(scratch)
        try await second.apply(Self.block)
        #expect(scratch.read("etc/hosts") == expected)
        try await second.apply(.empty)
        #expect(scratch.read("etc/hosts") == Self.user)
        #expect(access(copy, F_OK) != 0)
    }

    @Test func nothingIsSavedWhileNothingIsBlocked() async throws {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", Self.user)
        let enforcer = enforcer(scratch)
        try await enforcer.apply(.empty)
        await enforcer.restoreIfChanged()
        #expect(access(scratch.path + "/var/lib/simplylock/hosts.user", F_OK) != 0)
        #expect(scratch.read("etc/hosts") == Self.user)
    }

    // Issue 9, item 13: a crash between creating and renaming the temporary file left it.
    @Test func temporaryFilesOfACrashAreRemoved() async throws {
        let scratch = try Scratch()
        try scratch.write("etc/hosts", Self.user)
        try scratch.write("etc/.hosts.simplylock-Ab3xYz", "half written")
        try scratch.write("etc/.hosts.simplylock-notours1", "not our template")
        try scratch.write("etc/.other.simplylock-Ab3xYz", "another file's")
        #expect(symlink("/etc/passwd", scratch.path + "/etc/.hosts.simplylock-Qw9rTy") == 0)
        let enforcer = enforcer(scratch)
        try await enforcer.apply(Self.block)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/etc"))
        #expect(names == ["hosts", ".hosts.simplylock-notours1", ".other.simplylock-Ab3xYz", ".hosts.simplylock-Qw9rTy"])
    }
}
