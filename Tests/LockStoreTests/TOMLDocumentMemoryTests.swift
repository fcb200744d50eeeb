import CLinux
import Foundation
import LockNames
import TestSupport
import Testing

@testable import LockStore

/// Reading a profile file's arrays does not leak what TOMLKit copies for each string.
@Suite struct TOMLDocumentMemoryTests {
    @Test func arraysOfStringsReadTheSameAndLeaveNothingBehind() throws {
        let names = (0..<10_000).map { "n\($0).example" } + ["é.example", "quote\\\"d", "tab\\there", "日本.example"]
        let text = "domains = [\n" + names.map { "  \"\($0)\"," }.joined(separator: "\n") + "\n]\n"
        let document = try TOMLDocument(file: "test.toml", text: text)
        let array = try #require(document.table["domains"]?.array)
        // The same strings as TOMLKit's own getter gives.
        let expected = array.map { $0.string ?? "" }
        // Read through the C layer, not the leaking getter.
        #expect(TOMLDocument.arrayPointer(array) != nil)
        #expect(try document.strings("domains") == expected)
        #expect(expected.last == "日本.example" && expected[names.count - 3] == "quote\"d")

        let before = mallinfo2().uordblks
        for _ in 0..<10 { _ = try document.strings("domains") }
        let grown = Int(mallinfo2().uordblks) - Int(before)
        // TOMLKit's getter keeps a copy of every string read: 10 reads of 10 000 would keep
        // over 3 MB. The arena is the process's: tests running beside this one move it by a few
        // hundred kilobytes.
        #expect(grown < 1024 * 1024, "the heap grew by \(grown) bytes over 10 reads")
    }

    @Test func anArrayWithANonStringIsStillReportedAsSuch() throws {
        let document = try TOMLDocument(file: "test.toml", text: "domains = [\"a.example\", 3]\n")
        #expect(throws: FileProblem.self) { try document.strings("domains") }
        #expect(throws: FileProblem.self) { try document.domainList("domains", names: DomainNameParser(publicSuffixes: nil)) }
    }
}
