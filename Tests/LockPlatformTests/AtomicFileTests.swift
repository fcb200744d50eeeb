import Foundation
import Glibc
import LockPlatform
import TestSupport
import Testing

@Suite("AtomicFile on real files")
struct AtomicFileTests {
    // Issue 9, item 13: 45 temporary files were left after 640 kills.
    @Test func removesOnlyOurOwnTemporaryRegularFiles() throws {
        let scratch = try Scratch()
        let directory = scratch.path + "/etc"
        for name in [
            ".focus.toml.simplylock-a1B2c3", ".deep-work.toml.simplylock-ZZZZZZ", ".hosts.simplylock-000000",
            "focus.toml", ".focus.toml.simplylock-a1B2c", ".focus.toml.simplylock-a1B2c3d", ".focus.toml.simplylock-a1B2c!",
            "focus.toml.simplylock-a1B2c3", "..simplylock-a1B2c3", ".focus.toml.simplylock-",
        ] {
            try scratch.write("etc/" + name, "x")
        }
        #expect(mkdir(directory + "/.dir.toml.simplylock-a1B2c3", 0o755) == 0)
        #expect(symlink("/etc/passwd", directory + "/.link.toml.simplylock-a1B2c3") == 0)
        if getuid() == 0 {
            try scratch.write("etc/.theirs.toml.simplylock-a1B2c3", "x")
            #expect(chown(directory + "/.theirs.toml.simplylock-a1B2c3", 65534, 65534) == 0)
        }

        let forFocus = AtomicFile.removeLeftovers(in: directory, for: "focus.toml")
        #expect(forFocus == [directory + "/.focus.toml.simplylock-a1B2c3"])
        let forAny = Set(AtomicFile.removeLeftovers(in: directory).map { ($0 as NSString).lastPathComponent })
        #expect(forAny == [".deep-work.toml.simplylock-ZZZZZZ", ".hosts.simplylock-000000"])
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(
            left.isSuperset(of: [
                "focus.toml", ".focus.toml.simplylock-a1B2c", ".focus.toml.simplylock-a1B2c3d",
                ".dir.toml.simplylock-a1B2c3", ".link.toml.simplylock-a1B2c3", "..simplylock-a1B2c3",
            ]))
        #expect(!left.contains(".focus.toml.simplylock-a1B2c3"))
        if getuid() == 0 { #expect(left.contains(".theirs.toml.simplylock-a1B2c3")) }
        #expect(AtomicFile.removeLeftovers(in: scratch.path + "/missing").isEmpty)
    }

    @Test func writeReplacesASymbolicLinkAndLeavesItsTargetAlone() throws {
        let scratch = try Scratch()
        try scratch.write("target", "private\n")
        chmod(scratch.path + "/target", 0o600)
        let path = scratch.path + "/etc/file"
        #expect(symlink(scratch.path + "/target", path) == 0)
        try AtomicFile.write(Array("new\n".utf8), to: path, attributes: AtomicFile.Attributes(mode: 0o644))
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o7777 == 0o644)
        #expect(scratch.read("target") == "private\n")
        #expect(scratch.read("etc/file") == "new\n")
    }

    @Test func entryNeverFollowsOrOpensAnythingButARegularFile() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/etc/hosts"
        guard case .missing = try AtomicFile.entry(at: path) else {
            Issue.record("expected missing")
            return
        }
        #expect(symlink("/etc/hostname", path) == 0)
        guard case .symbolicLink = try AtomicFile.entry(at: path) else {
            Issue.record("expected a link")
            return
        }
        unlink(path)
        #expect(mkfifo(path, 0o644) == 0)
        guard case .other = try AtomicFile.entry(at: path) else {
            Issue.record("expected a FIFO")
            return
        }
        unlink(path)
        #expect(mkdir(path, 0o755) == 0)
        guard case .directory = try AtomicFile.entry(at: path) else {
            Issue.record("expected a directory")
            return
        }
        let moved = try AtomicFile.moveAside(path, label: "simplylock-moved", at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(moved == path + ".simplylock-moved-20270115T080000Z")
        try scratch.write("etc/hosts", "a\n")
        guard case .regular(let bytes, _) = try AtomicFile.entry(at: path) else {
            Issue.record("expected a file")
            return
        }
        #expect(bytes == Array("a\n".utf8))
        #expect(mkdir(path + "2", 0o755) == 0)
        let again = try AtomicFile.moveAside(path + "2", label: "x", at: Date(timeIntervalSince1970: 0))
        #expect(mkdir(path + "2", 0o755) == 0)
        #expect(try AtomicFile.moveAside(path + "2", label: "x", at: Date(timeIntervalSince1970: 0)) == again + "-2")
    }
}
