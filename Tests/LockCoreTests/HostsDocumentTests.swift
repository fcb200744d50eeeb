import LockCore
import Testing

@Suite struct HostsDocumentTests {
    func render(_ text: String, _ names: [String]) -> String {
        String(decoding: HostsDocument(bytes: Array(text.utf8)).rendered(names: names), as: UTF8.self)
    }

    func strip(_ text: String) -> String {
        String(decoding: HostsDocument(bytes: Array(text.utf8)).userBytes, as: UTF8.self)
    }

    static let hostile = [
        "", "\n", "127.0.0.1 localhost\n", "127.0.0.1 localhost", "127.0.0.1 localhost\r\n::1 localhost\r\n",
        "127.0.0.1 localhost\r\n::1 localhost", "\t127.0.0.1\tlocalhost   # tabs\n\n\n", "# only a comment",
        "10.0.0.1 reddit.com www.reddit.com\n127.0.0.1 localhost\n", "no newline\r", "\u{FEFF}127.0.0.1 bom\n",
    ]

    @Test(arguments: hostile)
    func roundTripPreservesUserBytes(original: String) {
        let blocked = render(original, ["reddit.com", "www.reddit.com"])
        #expect(blocked.contains("# BEGIN simplylock"))
        #expect(blocked.contains("0.0.0.0 reddit.com www.reddit.com"))
        #expect(blocked.contains(":: reddit.com www.reddit.com"))
        #expect(Array(strip(blocked).utf8) == Array(original.utf8))
        #expect(render(blocked, []) == original)
        // Idempotent: rendering again changes nothing.
        #expect(render(blocked, ["reddit.com", "www.reddit.com"]) == blocked)
    }

    @Test func crlfFilesGetCRLFSections() {
        let blocked = render("127.0.0.1 localhost\r\n", ["a.com"])
        #expect(blocked == "127.0.0.1 localhost\r\n# BEGIN simplylock\r\n# Managed by simplylockd: edits inside this section are undone. 1 names.\r\n0.0.0.0 a.com\r\n:: a.com\r\n# END simplylock\r\n")
    }

    @Test func missingFinalNewlineIsKept() {
        let blocked = render("127.0.0.1 localhost", ["a.com"])
        #expect(blocked.hasPrefix("127.0.0.1 localhost\n# BEGIN simplylock\n"))
        #expect(blocked.hasSuffix("# END simplylock"))
        #expect(strip(blocked) == "127.0.0.1 localhost")
    }

    @Test func sectionStaysWhereItWas() {
        let text = "1.1.1.1 a\n# BEGIN simplylock\n0.0.0.0 old.com\n# END simplylock\n2.2.2.2 b\n"
        let document = HostsDocument(bytes: Array(text.utf8))
        #expect(document.listedNames == ["old.com"])
        #expect(String(decoding: document.userBytes, as: UTF8.self) == "1.1.1.1 a\n2.2.2.2 b\n")
        let updated = render(text, ["new.com"])
        #expect(updated.hasPrefix("1.1.1.1 a\n# BEGIN simplylock\n"))
        #expect(updated.hasSuffix("# END simplylock\n2.2.2.2 b\n"))
        #expect(!updated.contains("old.com"))
    }

    @Test func duplicateSectionsCollapseIntoOne() {
        let text = "# BEGIN simplylock\n0.0.0.0 a.com\n# END simplylock\nuser line\n#BEGIN  simplylock\n0.0.0.0 b.com\n#\tEND simplylock\n"
        let updated = render(text, ["c.com"])
        #expect(updated.components(separatedBy: "BEGIN simplylock").count == 2)
        #expect(updated.contains("user line\n"))
        #expect(!updated.contains("a.com") && !updated.contains("b.com"))
        #expect(render(text, []) == "user line\n")
    }

    @Test func missingEndMarkerNeverSwallowsUserLines() {
        let text = "1.1.1.1 a\n# BEGIN simplylock\n0.0.0.0 x.com\n:: x.com\n192.168.0.1 printer\n# my note\n"
        #expect(render(text, []) == "1.1.1.1 a\n192.168.0.1 printer\n# my note\n")
        let updated = render(text, ["y.com"])
        #expect(updated.contains("192.168.0.1 printer\n# my note\n"))
        #expect(updated.contains("# END simplylock\n"))
        #expect(!updated.contains("x.com"))
    }

    @Test func strayEndMarkerIsDropped() {
        #expect(render("a\n# END simplylock\nb\n", []) == "a\nb\n")
    }

    @Test func userEntriesForBlockedNamesAreKept() {
        let text = "10.0.0.1 reddit.com\n"
        let updated = render(text, ["reddit.com"])
        #expect(updated.hasPrefix("10.0.0.1 reddit.com\n# BEGIN"))
    }

    @Test func userEditsInsideTheSectionSurviveAsUserLines() {
        let text = "# BEGIN simplylock\n0.0.0.0 a.com\n10.9.9.9 sneaky.com\n# END simplylock\n"
        let stripped = strip(text)
        #expect(stripped.contains("10.9.9.9 sneaky.com\n"))
        #expect(!stripped.contains("a.com"))
    }

    @Test func packsFiftyNamesPerLine() {
        let names = (0..<120).map { "n\($0).com" }
        let lines = render("", names).split(separator: "\n")
        let v4 = lines.filter { $0.hasPrefix("0.0.0.0 ") }
        let v6 = lines.filter { $0.hasPrefix(":: ") }
        #expect(v4.count == 3 && v6.count == 3)
        #expect(v4[0].split(separator: " ").count == 51)
        #expect(v4[2].split(separator: " ").count == 21)
        #expect(Set(v4.flatMap { $0.split(separator: " ").dropFirst() }).count == 120)
    }

    @Test func nonUTF8BytesArePreserved() {
        let original: [UInt8] = [0xFF, 0xFE, 0x20, 0x61, 0x0A, 0xC3, 0x28, 0x0A]
        let blocked = HostsDocument(bytes: original).rendered(names: ["a.com"])
        #expect(HostsDocument(bytes: blocked).userBytes == original)
        #expect(HostsDocument(bytes: blocked).rendered(names: []) == original)
    }
}
