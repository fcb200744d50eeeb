import Glibc
import LockNames
import Testing

@Suite struct PublicSuffixListTests {
    // The examples of the list's own algorithm description, on a list of its rules.
    let list = PublicSuffixList(
        text: """
            // ===BEGIN ICANN DOMAINS===
            com
            *.foo.com
            *.jp
            // Hosts in .hokkaido.jp can't set cookies below level 4...
            *.hokkaido.jp
            *.tokyo.jp
            !pref.hokkaido.jp
            !metro.tokyo.jp
            ck
            *.ck
            !www.ck
            公司.cn
            uk trailing text is ignored
            co.uk
            // ===BEGIN PRIVATE DOMAINS===
            github.io
            """)

    @Test(arguments: [
        ("foo.com", "com"), ("bar.foo.com", "bar.foo.com"), ("example.bar.foo.com", "bar.foo.com"),
        ("foo.bar.jp", "bar.jp"), ("bar.jp", "bar.jp"), ("foo.bar.hokkaido.jp", "bar.hokkaido.jp"),
        ("pref.hokkaido.jp", "hokkaido.jp"), ("metro.tokyo.jp", "tokyo.jp"), ("www.ck", "ck"), ("a.b.ck", "b.ck"),
        ("example.zzz", "zzz"), ("zzz", "zzz"), ("bbc.co.uk", "co.uk"), ("me.github.io", "github.io"),
        ("a.xn--55qx5d.cn", "xn--55qx5d.cn"),
    ])
    func publicSuffix(name: String, expected: String) {
        #expect(list.publicSuffix(of: name) == expected)
    }

    @Test func countsRules() {
        #expect(list.ruleCount == 14)
        #expect(list.unusableRules.isEmpty)
        #expect(list.isPublicSuffix("co.uk"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(list.isPublicSuffix("other.ck"))
    }

    @Test(.enabled(if: FileManagerCheck.exists(PublicSuffixListFile.debianPath), "Debian's publicsuffix package is not installed"))
    func readsDebiansList() throws {
        let list = try PublicSuffixListFile.load()
        #expect(list.ruleCount > 9_000)
        #expect(list.unusableRules.isEmpty, "\(list.unusableRules)")
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("github.io") && list.isPublicSuffix("xn--p1ai"))
    }

    @Test func missingFile() {
        do {
            _ = try PublicSuffixListFile.load("/nonexistent")
            Issue.record("loaded a list from a missing file")
        } catch {
            #expect(error.path == "/nonexistent" && error.problem == "is missing")
            #expect(error.description.contains("install Debian's publicsuffix package"))
        }
    }
}

enum FileManagerCheck {
    static func exists(_ path: String) -> Bool { access(path, R_OK) == 0 }
}
