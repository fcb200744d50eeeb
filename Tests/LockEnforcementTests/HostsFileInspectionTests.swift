import Foundation
import Glibc
import LockCore
import LockEnforcement
import TestSupport
import Testing

/// Issue 9, item 11: doctor said "ok" for a hosts file of mode 000, a symlink to a 0600 file
/// and a directory, none of which a normal user's resolver can use.
@Suite struct HostsFileInspectionTests {
    final class Directory: @unchecked Sendable {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "simplylock-inspect-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path + "/etc", withIntermediateDirectories: true)
            chmod(path, 0o755)
            chmod(path + "/etc", 0o755)
        }
        var hosts: String { path + "/etc/hosts" }
        func write(_ text: String, mode: mode_t = 0o644) throws {
            unlink(hosts)
            try Data(text.utf8).write(to: URL(fileURLWithPath: hosts))
            chmod(hosts, mode)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let names = ["reddit.com", "www.reddit.com", "use-application-dns.net"]
    static let good = String(decoding: HostsDocument(bytes: Array("127.0.0.1 localhost\n".utf8)).rendered(names: names), as: UTF8.self)

    func problem(_ directory: Directory, _ names: [String] = names) -> Finding? {
        HostsFileInspection(path: directory.hosts).problem(names: names)
    }

    @Test func aCorrectFileHasNothingToReport() throws {
        let directory = try Directory()
        try directory.write(Self.good)
        #expect(problem(directory) == nil)
        try directory.write("127.0.0.1 localhost\n")
        #expect(problem(directory, []) == nil)
    }

    @Test func unreadableForOthers() throws {
        let directory = try Directory()
        for mode: mode_t in [0o000, 0o600, 0o640] {
            try directory.write(Self.good, mode: mode)
            let found = try #require(problem(directory))
            #expect(found.severity == .problem)
            #expect(found.message.contains("cannot be read by other users"), "\(found.message)")
            #expect(problem(directory, [])?.severity == .warning)
        }
    }

    @Test func closedDirectoryAbove() throws {
        let directory = try Directory()
        try directory.write(Self.good)
        chmod(directory.path + "/etc", 0o700)
        #expect(problem(directory)?.message.contains("cannot be searched by other users") == true)
    }

    @Test func symlinkDirectoryAndFIFO() throws {
        let directory = try Directory()
        try Data(Self.good.utf8).write(to: URL(fileURLWithPath: directory.path + "/private"))
        chmod(directory.path + "/private", 0o600)
        #expect(symlink(directory.path + "/private", directory.hosts) == 0)
        #expect(problem(directory)?.message.contains("symbolic link") == true)
        #expect(problem(directory)?.severity == .problem)
        #expect(problem(directory, [])?.severity == .warning)
        unlink(directory.hosts)
        #expect(mkdir(directory.hosts, 0o755) == 0)
        #expect(problem(directory)?.message.contains("is a directory") == true)
        rmdir(directory.hosts)
        #expect(mkfifo(directory.hosts, 0o644) == 0)
        #expect(problem(directory)?.message.contains("not a regular file") == true)
        unlink(directory.hosts)
        #expect(problem(directory)?.message.contains("does not exist") == true)
        #expect(problem(directory, []) == nil)
    }

    @Test func worldWritable() throws {
        let directory = try Directory()
        try directory.write(Self.good, mode: 0o666)
        #expect(problem(directory)?.severity == .warning)
    }

    @Test func userEntryDefeatingTheBlock() throws {
        let directory = try Directory()
        try directory.write("10.1.1.1 Reddit.com # mine\n" + Self.good)
        let found = try #require(problem(directory))
        // A block not in force for a name it should cover is a problem (issue 24, row 5).
        #expect(found.severity == .problem)
        #expect(found.message.contains("\"10.1.1.1 Reddit.com # mine\""))
        // Loopback is as good as 0.0.0.0.
        try directory.write("127.0.0.1 reddit.com\n" + Self.good)
        #expect(problem(directory) == nil)
    }

    @Test func sectionMissingOrWithoutTrailingDots() throws {
        let directory = try Directory()
        try directory.write("127.0.0.1 localhost\n")
        #expect(problem(directory)?.message.contains("3 of 3 names do not resolve to 0.0.0.0 for glibc") == true)
        // What versions before the trailing-dot forms wrote: `https://reddit.com./` passed.
        try directory.write(
            "# BEGIN simplylock\n0.0.0.0 reddit.com www.reddit.com use-application-dns.net\n:: reddit.com www.reddit.com use-application-dns.net\n# END simplylock\n"
        )
        #expect(problem(directory)?.message.contains("do not resolve") == true)
    }

    @Test func namesPastMuslsBuffer() throws {
        // Fifty names to a line, as versions before this one wrote: lines reached 978 bytes.
        let names = (0..<60).map { "name-number-\($0).example" }
        let line = "0.0.0.0 " + names.flatMap { [$0, $0 + "."] }.joined(separator: " ")
        let v6 = ":: " + names.flatMap { [$0, $0 + "."] }.joined(separator: " ")
        let directory = try Directory()
        try directory.write("# BEGIN simplylock\n\(line)\n\(v6)\n# END simplylock\n")
        let found = try #require(problem(directory, names))
        #expect(found.message.contains("past byte 511"), "\(found.message)")
        try directory.write(String(decoding: HostsDocument(bytes: []).rendered(names: names), as: UTF8.self))
        #expect(problem(directory, names) == nil)
    }

    @Test func muslViewAtTheBoundary() {
        // 511 bytes with the newline: everything visible. One more byte: the last name is lost.
        let prefix = "0.0.0.0 "
        let fits = prefix + String(repeating: "a", count: 510 - prefix.count - 6) + ".com x" + "\n"
        #expect(fits.utf8.count == 511)
        #expect(HostsFileInspection.muslView(Array(fits.utf8)).contains("x"))
        let over = prefix + String(repeating: "a", count: 511 - prefix.count - 6) + ".com x" + "\n"
        #expect(!HostsFileInspection.muslView(Array(over.utf8)).contains("x"))
        #expect(HostsFileInspection.muslView(Array(over.utf8)).contains(String(repeating: "a", count: 511 - prefix.count - 6) + ".com"))
        #expect(HostsFileInspection.muslView(Array(" 0.0.0.0 indented\n".utf8)).isEmpty)
        #expect(HostsFileInspection.muslView(Array("0.0.0.0 a # b\n".utf8)) == ["a"])
    }
}
