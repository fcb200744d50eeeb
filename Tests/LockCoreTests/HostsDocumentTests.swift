import Foundation
import LockCore
import Testing

@Suite struct HostsDocumentTests {
    func render(_ text: String, _ names: [String]) -> String {
        String(decoding: HostsDocument(bytes: Array(text.utf8)).rendered(names: names), as: UTF8.self)
    }

    func strip(_ text: String, knownUser: String? = nil, ownNames: Set<String>? = nil) -> String {
        String(
            decoding: HostsDocument(
                bytes: Array(text.utf8), knownUser: knownUser.map { Array($0.utf8) }, ownNames: ownNames.map { own in { own.contains($0) } }
            ).userBytes,
            as: UTF8.self)
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
        #expect(blocked.contains("0.0.0.0 reddit.com reddit.com. www.reddit.com www.reddit.com."))
        #expect(blocked.contains(":: reddit.com reddit.com. www.reddit.com www.reddit.com."))
        #expect(Array(strip(blocked).utf8) == Array(original.utf8))
        #expect(render(blocked, []) == original)
        // Idempotent: rendering again changes nothing.
        #expect(render(blocked, ["reddit.com", "www.reddit.com"]) == blocked)
    }

    @Test func crlfFilesGetCRLFSections() {
        let blocked = render("127.0.0.1 localhost\r\n", ["a.com"])
        #expect(
            blocked
                == "127.0.0.1 localhost\r\n# BEGIN simplylock\r\n# Managed by simplylockd: edits inside this section are undone. 1 names.\r\n0.0.0.0 a.com a.com.\r\n:: a.com a.com.\r\n# END simplylock\r\n"
        )
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
        #expect(HostsDocument(bytes: Array(text.utf8)).isDamaged)
    }

    // The old input used lines without trailing-dot forms and without our comment, which no
    // version ever wrote; lines of the shape we write are what a lost END leaves behind.
    @Test func missingEndMarkerNeverSwallowsUserLines() {
        let text = "1.1.1.1 a\n# BEGIN simplylock\n0.0.0.0 x.com x.com.\n:: x.com x.com.\n192.168.0.1 printer\n# my note\n"
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

    // Issue 9, item 10: everything between the markers is ours. Adopting a line written there
    // as the user's kept `0.0.0.0` entries of ours in the file after the block ended.
    @Test func everythingBetweenTheMarkersIsOurs() {
        let text = "# BEGIN simplylock\n0.0.0.0 a.com\n10.9.9.9 sneaky.com\n# END simplylock\n"
        #expect(strip(text) == "")
    }

    // `sed -i '/^# BEGIN simplylock/a # note'`: the old parser stopped the section at the note
    // and adopted every line after it.
    @Test func lineInsertedAfterBeginDoesNotTurnOurLinesIntoTheUsers() {
        let user = "127.0.0.1 localhost\n# mine\n"
        let blocked = render(user, ["reddit.com", "www.reddit.com"])
        let damaged = blocked.replacingOccurrences(of: "# BEGIN simplylock\n", with: "# BEGIN simplylock\n# note\n")
        #expect(render(damaged, []) == user)
        #expect(HostsDocument(bytes: Array(damaged.utf8)).listedNames == ["reddit.com", "www.reddit.com"])
        #expect(render(damaged, ["reddit.com", "www.reddit.com"]) == blocked)
    }

    @Test(arguments: [
        // A second END right after BEGIN, in the middle, at the end, and among the user's lines.
        ("# BEGIN simplylock\n", "# BEGIN simplylock\n# END simplylock\n"),
        ("\n:: ", "\n# END simplylock\n:: "),
        ("# END simplylock\n", "# END simplylock\n# END simplylock\n"),
        ("# mine\n", "# mine\n# END simplylock\n"),
        // A duplicated BEGIN, a BEGIN in the middle, and one among the user's lines.
        ("# BEGIN simplylock\n", "# BEGIN simplylock\n# BEGIN simplylock\n"),
        ("\n:: ", "\n# BEGIN simplylock\n:: "),
        ("127.0.0.1 localhost\n", "# BEGIN simplylock\n127.0.0.1 localhost\n"),
        // A marker deleted.
        ("# BEGIN simplylock\n", ""),
        ("# END simplylock\n", ""),
        // Odd spellings of the markers are still markers.
        ("# BEGIN simplylock\n", "  #\tbegin   SimplyLock \r\n"),
        ("# END simplylock\n", "#END simplylock\t\n"),
    ])
    func damagedMarkersNeverTurnOurLinesIntoTheUsers(replace: String, with replacement: String) {
        let user = "127.0.0.1 localhost\n0.0.0.0 ads.example www.ads.example\n# mine\n"
        let blocked = render(user, ["reddit.com", "www.reddit.com"])
        let range = blocked.range(of: replace)!
        let damaged = blocked.replacingCharacters(in: range, with: replacement)
        #expect(render(damaged, []) == user, "\(damaged)")
        #expect(render(damaged, ["reddit.com", "www.reddit.com"]) == blocked, "\(damaged)")
    }

    // `sed -i '/simplylock/d'` deletes both markers and our comment: nothing in the file says
    // which lines are ours any more, except their shape and what the user's part was.
    @Test func bothMarkersDeletedNeedTheKnownUserPart() {
        let user = "127.0.0.1 localhost\n0.0.0.0 mine.example mine.example.\n"
        let blocked = render(user, ["reddit.com"])
        let damaged = blocked.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("simplylock") }.joined(separator: "\n")
        // Without knowledge the shape alone does not decide: a user may write such lines.
        #expect(strip(damaged).contains("0.0.0.0 reddit.com reddit.com."))
        // With the user's part from the last sane reading, ours go and the user's own stays.
        #expect(strip(damaged, knownUser: user) == user)
        // Knowing which names are ours, a new line of the user's own for another name is
        // theirs wherever it stands.
        let edited = blocked + "0.0.0.0 new.example new.example.\n"
        #expect(strip(edited, knownUser: user, ownNames: ["reddit.com"]) == user + "0.0.0.0 new.example new.example.\n")
        #expect(
            strip(damaged + "0.0.0.0 new.example new.example.\n", knownUser: user, ownNames: ["reddit.com"])
                == user + "0.0.0.0 new.example new.example.\n")
    }

    @Test func trailingDotFormsForEveryName() {
        let blocked = render("", ["reddit.com", "www.reddit.com"])
        let v4 = blocked.split(separator: "\n").filter { $0.hasPrefix("0.0.0.0 ") }
        #expect(v4 == ["0.0.0.0 reddit.com reddit.com. www.reddit.com www.reddit.com."])
        #expect(HostsDocument(bytes: Array(blocked.utf8)).listedNames == ["reddit.com", "www.reddit.com"])
    }

    @Test func namesAResolverRefusesAreLeftOut() {
        let longest =
            String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63) + "."
            + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 57) + ".com"
        #expect(longest.count == 253)
        let twin = "www." + longest
        let blocked = render("", [longest, twin, "bad name.com", "hash#.com", "", "ok.com", "ok.com."])
        // Too long to share a line with its trailing-dot form (517 bytes): a line each.
        #expect(blocked.contains("\n0.0.0.0 " + longest + "\n0.0.0.0 " + longest + ".\n"))
        #expect(blocked.contains("\n:: " + longest + "\n:: " + longest + ".\n"))
        #expect(blocked.split(separator: "\n").allSatisfy { $0.utf8.count < HostsDocument.maxLineBytes })
        // Still ours when a marker is lost.
        #expect(render(blocked.replacingOccurrences(of: "# BEGIN simplylock\n", with: ""), []) == "")
        #expect(!blocked.contains(twin))
        #expect(!blocked.contains("bad") && !blocked.contains("hash"))
        #expect(blocked.contains(" ok.com ok.com.") && blocked.components(separatedBy: " ok.com ").count == 3)
        #expect(blocked.contains("2 names."))
        // Between short names, the long one ends the line before it and starts a new one after.
        let mixed = render("127.0.0.1 localhost", ["a.com", longest, "b.com"]).split(separator: "\n").filter { $0.hasPrefix("0.0.0.0") }
            .map(String.init)
        #expect(mixed == ["0.0.0.0 a.com a.com.", "0.0.0.0 " + longest, "0.0.0.0 " + longest + ".", "0.0.0.0 b.com b.com."])
    }

    @Test(arguments: [false, true])
    func linesStayWithinMuslsBuffer(crlf: Bool) {
        // Names of many lengths, so that lines end at every distance from the limit.
        let names = (0..<600).map { index in String(repeating: "x", count: 1 + index % 90) + "\(index).example" }
        let user = crlf ? "127.0.0.1 localhost\r\n" : "127.0.0.1 localhost\n"
        let blocked = HostsDocument(bytes: Array(user.utf8)).rendered(names: names)
        var listed: [String] = []
        var lengths: [Int] = []
        var start = 0
        for (index, byte) in blocked.enumerated() where byte == UInt8(ascii: "\n") {
            let line = blocked[start...index]
            lengths.append(line.count)
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("0.0.0.0 ") { listed += text.split(separator: " ").dropFirst().map(String.init) }
            start = index + 1
        }
        #expect(lengths.allSatisfy { $0 <= HostsDocument.maxLineBytes }, "\(lengths.max() ?? 0)")
        // Packed: most lines end within one name of the limit.
        #expect(lengths.filter { $0 > HostsDocument.maxLineBytes - 2 * 100 }.count > lengths.count / 2)
        #expect(listed == names.flatMap { [$0, $0 + "."] })
    }
}
