import Foundation
import LockCore
import LockPlatform
import LockStore
import Logging
import TestSupport
import Testing

@testable import LockDaemon

/// The daemon's compact form of imported lists on disk, and the library loaded from it.
@Suite struct BlocklistStoreTests {
    static func list(_ name: String, block: [String], allow: [String] = [], at seconds: Double = 0, source: String = "-") -> Blocklist {
        let blockSet = DomainSuffixSet(block)
        let allowSet = DomainSuffixSet(allow)
        var report = BlocklistReport()
        report.lines = block.count + allow.count + 1
        report.skipped[.regex] = 1
        report.examples[.regex] = [BlocklistReport.Example(line: 3, text: "/ads?/")]
        let info = BlocklistInfo(
            name: name, version: BlocklistFile.version(block: blockSet, allow: allowSet), source: source,
            importedAt: Date(timeIntervalSince1970: seconds), names: blockSet.count, exceptions: allowSet.count,
            report: report)
        return Blocklist(reference: info.reference, block: blockSet, allow: allowSet, info: info)
    }

    @Test func aListComesBackAsItWasStored() throws {
        let scratch = try Scratch()
        let store = BlocklistStore(directory: scratch.path + "/lists")
        let names = (0..<5000).map { "n\($0).example" } + ["ads.example", "x.ads.example"]
        let original = Self.list("ads", block: names, allow: ["ok.ads.example"], source: "/tmp/list.txt")
        #expect(original.block.count == 5001, "a name under a listed parent is collapsed")
        try store.save(original)
        let (loaded, problems) = store.loadAll(seed: 42)
        #expect(problems.isEmpty)
        let list = try #require(loaded.first)
        #expect(list.reference == original.reference)
        #expect(list.info == original.info)
        #expect(list.block.sorted == original.block.sorted)
        #expect(list.allow.sorted == ["ok.ads.example"])
        #expect(list.blockingRule(for: "m.ads.example") == "ads.example")
        #expect(list.blockingRule(for: "ok.ads.example") == nil)
        #expect(BlocklistFile.version(block: list.block, allow: list.allow) == original.reference.version)
    }

    @Test func theVersionFollowsTheNamesNotTheImport() {
        let a = Self.list("ads", block: ["a.example", "b.example"], at: 1)
        let b = Self.list("ads", block: ["a.example", "b.example"], at: 2, source: "elsewhere")
        let c = Self.list("ads", block: ["a.example"], allow: ["b.example"])
        #expect(a.reference.version == b.reference.version)
        #expect(a.reference.version != c.reference.version)
        #expect(BlocklistReference.isVersion(a.reference.version))
    }

    @Test(arguments: [
        ("flipped byte", 0), ("truncated", 1), ("bad magic", 2), ("trailing bytes", 3), ("renamed", 4),
    ])
    func aDamagedFileIsReportedAndLeftAlone(_ damage: String, _ kind: Int) throws {
        let scratch = try Scratch()
        let store = BlocklistStore(directory: scratch.path + "/lists")
        let list = Self.list("ads", block: (0..<300).map { "n\($0).example" })
        try store.save(list)
        var path = store.file(for: list.reference)
        var bytes = try #require(FileManager.default.contents(atPath: path))
        switch kind {
        case 0: bytes[bytes.count / 2] ^= 0x20
        case 1: bytes = bytes.prefix(bytes.count - 20)
        case 2: bytes[0] = UInt8(ascii: "X")
        case 3: bytes.append(0)
        default:
            let other = store.file(for: BlocklistReference(name: "other", version: list.reference.version))
            try FileManager.default.moveItem(atPath: path, toPath: other)
            path = other
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let (loaded, problems) = store.loadAll()
        #expect(loaded.isEmpty, "\(damage)")
        #expect(problems.count == 1, "\(damage)")
        #expect(problems.first?.file == path)
        #expect(FileManager.default.fileExists(atPath: path), "a file that cannot be read is never deleted")
    }

    @Test func otherFilesInTheDirectoryAreIgnored() throws {
        let scratch = try Scratch()
        try scratch.write("lists/README", "not a list")
        try scratch.write("lists/ads.nothex0000000000.list", "x")
        try scratch.write("lists/.ads.0000000000000001.list.simplylock-AbC123", "leftover")
        let store = BlocklistStore(directory: scratch.path + "/lists")
        #expect(store.files().isEmpty)
        #expect(store.loadAll().problems.isEmpty)
    }

    @Test func theLibraryMakesTheNewestImportCurrent() {
        let older = Self.list("ads", block: ["a.example"], at: 100)
        let newer = Self.list("ads", block: ["b.example"], at: 200)
        let other = Self.list("trackers", block: ["t.example"], at: 50)
        let library = BlocklistLibrary([newer, other, older])
        #expect(library.current("ads") == newer.reference)
        #expect(library.currentLists().map(\.reference) == [newer.reference, other.reference])
        #expect(library.list(older.reference) != nil, "older versions stay loaded for the blocks that hold them")
        #expect(library.current("nothing") == nil)
    }
}
