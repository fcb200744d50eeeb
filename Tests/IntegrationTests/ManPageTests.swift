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
}
