import Foundation
import Glibc
import LockPlatform
import TestSupport
import Testing

@Suite("Reading a process's files under /proc")
struct ProcFileTests {
    @Test func statFieldsCountFromTheStateWhateverTheCommandName() throws {
        let scratch = try Scratch()
        // A command name with spaces and parentheses, as a program can give itself.
        try scratch.write("proc/42/stat", "42 (a) b (c)) S 7 42 42 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 12345 1000 10\n")
        let fields = try #require(ProcFile.statFields(42, proc: scratch.path + "/proc"))
        #expect(fields[0] == "S")
        #expect(fields[1] == "7")  // field 4, the parent
        #expect(fields[19] == "12345")  // field 22, the start time
        #expect(ProcFile.statFields(43, proc: scratch.path + "/proc") == nil)
    }

    @Test func statusGivesTheFirstValueOfALine() throws {
        let scratch = try Scratch()
        try scratch.write("proc/42/status", "Name:\tgame\nUmask:\t0022\nUid:\t1000\t0\t0\t0\nGid:\t100\t100\t100\t100\n")
        #expect(ProcFile.status(42, "Uid", proc: scratch.path + "/proc") == "1000")
        #expect(ProcFile.status(42, "Gid", proc: scratch.path + "/proc") == "100")
        #expect(ProcFile.status(42, "Groups", proc: scratch.path + "/proc") == nil)
    }

    @Test func readsThisProcessAsTheKernelWritesIt() throws {
        let own = getpid()
        #expect(ProcFile.status(own, "Uid").flatMap { UInt32($0) } == getuid())
        let fields = try #require(ProcFile.statFields(own))
        #expect(Int32(fields[1]) == getppid())
        let arguments = try #require(ProcFile.bytes(own, "cmdline", limit: 65_536))
        #expect(arguments.last == 0)
        #expect(ProcFile.bytes(own, "comm", limit: 64)?.last == 10)
    }
}
