import Foundation
import TestSupport
import Testing

/// The generated man pages (`make generated`, as scripts/test.sh runs it) as mandoc reads them.
enum ManPages {
    static let directory = TestTools.repository + "/.build/simplylock-generated/man"
    static let pages = ["man1/lockctl.1", "man5/simplylockd.toml.5", "man8/simplylockd.8"]
    /// Our own pages refer to each other; mandoc looks references up among installed pages only.
    static let ownReferences = ["Xr lockctl 1", "Xr simplylockd 8", "Xr simplylockd.toml 5"]

    static let missing: String? = TestTools.missing {
        if TestTools.which("mandoc") == nil { return "mandoc is missing (apt-get install mandoc; scripts/setup.sh does)" }
        let absent = pages.filter { !FileManager.default.fileExists(atPath: directory + "/" + $0) }
        return absent.isEmpty
            ? nil : "run `make generated CONFIGURATION=debug` first (scripts/test.sh does); missing: \(absent.joined(separator: ", "))"
    }
}

@Suite("man pages", .enabled(if: ManPages.missing == nil, "\(ManPages.missing ?? "")"))
struct ManPageTests {
    @Test("mandoc -Tlint finds nothing to report", arguments: ManPages.pages)
    func lintClean(page: String) throws {
        let mandoc = try #require(TestTools.which("mandoc"), "mandoc is missing")
        let result = try ProcessRunner.run(mandoc, ["-Tlint", ManPages.directory + "/" + page])
        // Only what concerns the page: mandoc also complains about the machine's stale mandoc.db.
        let reported = (result.stdout + result.stderr).split(separator: "\n").filter { line in
            line.contains(page)
                && !(line.contains("referenced manual not found")
                    && ManPages.ownReferences.contains { line.hasSuffix($0) || line.contains($0 + " (") })
        }
        #expect(reported.isEmpty, "mandoc -Tlint \(page):\n\(reported.joined(separator: "\n"))")
    }

    @Test("as read: no Markdown backticks, no BSD volume title, JSON with its quotes", arguments: ManPages.pages)
    func rendered(page: String) throws {
        let mandoc = try #require(TestTools.which("mandoc"), "mandoc is missing")
        let text = try ProcessRunner.run(mandoc, ["-Tutf8", "-Owidth=200", ManPages.directory + "/" + page]).stdout
        #expect(!text.isEmpty)
        #expect(!text.contains("`"), "\(page) shows Markdown backticks")
        #expect(!text.contains("BSD"), "\(page) names BSD")
        if page.hasSuffix("lockctl.1") { #expect(text.contains(#"{"error": {"code":"#)) }
        if let groff = TestTools.which("groff") {
            let header = try ProcessRunner.run(groff, ["-mdoc", "-Tutf8", ManPages.directory + "/" + page]).stdout
            #expect(
                !header.contains("BSD General") && !header.contains("BSD File") && !header.contains("BSD System"),
                "groff titles \(page) BSD")
        }
    }
}

extension ManPageTests {
    @Test("simplylockd(8) lists every SIMPLYLOCK_ variable the daemon's modules read")
    func daemonEnvironment() throws {
        let page = try String(contentsOfFile: ManPages.directory + "/man8/simplylockd.8", encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"environment\["(SIMPLYLOCK_[A-Z_]+)"\]"#)
        var read: Set<String> = []
        for module in ["LockDaemon", "LockPlatform", "LockStore", "LockEnforcement"] {
            let directory = TestTools.repository + "/Sources/" + module
            for file in FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? [] where file.hasSuffix(".swift") {
                let source = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                for match in pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                    read.insert((source as NSString).substring(with: match.range(at: 1)))
                }
            }
        }
        #expect(read.count >= 4, "found only \(read.sorted())")
        for variable in read.sorted() {
            #expect(page.contains("\n.It Ev \(variable)\n"), "simplylockd(8) does not document \(variable)")
        }
    }

    @Test("lockctl(1) keeps each command's paragraphs apart, as its help shows them")
    func paragraphsStayApart() throws {
        let mandoc = try #require(TestTools.which("mandoc"), "mandoc is missing")
        // Wide enough that every paragraph is one line.
        let page = try ProcessRunner.run(mandoc, ["-Tutf8", "-Owidth=1000", ManPages.directory + "/man1/lockctl.1"]).stdout
        // Without a terminal mandoc still prints bold as a character, a backspace and it again.
        let plain = page.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let dump = try ProcessRunner.run(Binaries.lockctl, ["--experimental-dump-help"])
        let commands = try JSONDecoder().decode(HelpCommands.self, from: Data(dump.stdout.utf8)).command.all
        var checked = 0
        for discussion in commands.compactMap(\.discussion) {
            for paragraph in Self.paragraphs(of: discussion) {
                // Up to a backtick or a middle dot: the page shows those otherwise.
                let start = String(paragraph.prefix { $0 != "`" && $0 != "·" }.prefix(30))
                guard start.count >= 8 else { continue }
                let apart = lines.indices.contains {
                    lines[$0].hasPrefix(start) && $0 > 0 && (lines[$0 - 1].isEmpty || lines[$0 - 1] == "DESCRIPTION")
                }
                #expect(apart, "lockctl(1) runs \"\(start)…\" into what precedes it")
                checked += 1
            }
        }
        #expect(checked > 30, "only \(checked) paragraphs checked")
    }

    @Test("help texts are ASCII: generate-manual drops every other character from the man pages")
    func helpTextsAreASCII() throws {
        for binary in [Binaries.lockctl, Binaries.daemon] {
            let dump = try ProcessRunner.run(binary, ["--experimental-dump-help"])
            let other = dump.stdout.split(separator: "\n").filter { !$0.allSatisfy(\.isASCII) }
            #expect(dump.status == 0 && other.isEmpty, "\(binary): \(other)")
        }
    }

    /// The paragraphs of a help text as lockctl --help shows them: a blank line, an indented line
    /// (an example), or the end of a sentence at the end of a line ends one; a line wrapped by
    /// hand mid-sentence continues it.
    static func paragraphs(of text: String) -> [String] {
        var paragraphs: [String] = []
        var continues = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("  ") {
                continues = false
                continue
            }
            if !continues { paragraphs.append(String(line)) }
            let end = line.reversed().drop { "\")]' ".contains($0) }.first
            continues = end.map { !".!?:".contains($0) } ?? false
        }
        return paragraphs
    }
}

/// Each command's discussion, from lockctl's description of itself (--experimental-dump-help).
private struct HelpCommands: Decodable {
    struct Command: Decodable {
        var discussion: String?
        var subcommands: [Command]?

        /// This command and every one below it.
        var all: [Command] { [self] + (subcommands ?? []).flatMap(\.all) }
    }
    var command: Command
}
