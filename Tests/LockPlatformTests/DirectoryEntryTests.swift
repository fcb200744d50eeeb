import Foundation
import Glibc
import LockPlatform
import TestSupport
import Testing

@Suite("Names of readdir entries")
struct DirectoryEntryTests {
    /// A record as short as the kernel makes it, ending where readable memory ends: reading the
    /// name must stay inside it. Copying `d_name` (256 bytes) here faults, as it did in the daemon.
    @Test func aRecordEndingAtAnUnmappedPageIsReadInsideIt() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(memory != MAP_FAILED)
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let name = Array("bash".utf8) + [0]
        // 8-byte aligned, as glibc lays records out, and ending on the page's last byte.
        let recordLength = (offset + name.count + 7) & ~7
        let record = memory + page - recordLength
        memset(record, 0, recordLength)
        name.withUnsafeBytes { (record + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let entry = record.assumingMemoryBound(to: dirent.self)
        #expect(DirectoryEntry.name(entry) == "bash")
        #expect(DirectoryEntry.withName(entry) { Array($0) } == Array("bash".utf8))
    }

    @Test func namesAreThoseFileManagerLists() throws {
        let scratch = try Scratch()
        let names = ["a", "two words", "\u{e9}t\u{e9}", String(repeating: "x", count: 255)]
        for name in names { try scratch.write(name, "") }
        let directory = try #require(opendir(scratch.path))
        defer { closedir(directory) }
        var found: [String] = []
        while let entry = readdir(directory) { found.append(DirectoryEntry.name(entry)) }
        let expected = try FileManager.default.contentsOfDirectory(atPath: scratch.path) + [".", ".."]
        #expect(found.sorted() == expected.sorted())
    }
}
