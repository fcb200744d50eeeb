import LockCore
import Testing

@testable import LockNames

/// The parser as the daemon builds it, with the machine's public suffix list.
let systemParser = DomainNameParser.system().parser

@Suite struct DomainNameParserTests {
    @Test(arguments: [
        ("reddit.com", "reddit.com"), ("Reddit.COM.", "reddit.com"), ("  news.ycombinator.com\n", "news.ycombinator.com"),
        ("*.example.org", "example.org"), ("//cdn.example.net/a.js", "cdn.example.net"), ("a-b.c0m", "a-b.c0m"),
        ("bücher.example", "xn--bcher-kva.example"), ("MÜNCHEN.de", "xn--mnchen-3ya.de"), ("日本。jp", "xn--wgv71a.jp"),
        ("παράδειγμα.δοκιμή", "xn--hxajbheg2az3al.xn--jxalpdlp"), ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        // What the issue found browsers and the old normalisation disagreeing on.
        ("ＥＸＡＭＰＬＥ.com", "example.com"), ("ﬁnance.com", "finance.com"), ("ﾃｽﾄ.jp", "xn--zckzah.jp"),
        ("ᏣᎳᎩ.com", "xn--f9dt7l.com"), ("ꮳꮃꭹ.com", "xn--f9dt7l.com"),
        ("हिन्दी.भारत", "xn--j2bd4cyah0f.xn--h2brj9c"), ("İstanbul.com", "xn--istanbul-o0e.com"),
        ("نامه\u{200C}ای.ir", "xn--mgba3gch31f060k.ir"), ("col·legi.cat", "xn--collegi-xma.cat"),
        ("faß.de", "xn--fa-hia.de"), ("ex😀ample.com", "xn--example-8o25f.com"),
        ("தமிழ்நாடு.com", "xn--mlcjmx4a2deu8h.com"), ("ไทย.com", "xn--o3cw4h.com"), ("ខ្មែរ.com", "xn--j2e0cg3n2c.com"),
    ])
    func normalisesAsBrowsersDo(input: String, expected: String) throws {
        #expect(try systemParser.parse(input).value == expected)
    }

    @Test(arguments: [
        // Browsers go to example.com: "\" ends the authority of a web URL.
        ("https://example.com\\@evil.com/", "example.com"),
        ("http://user:pass@host.com:8080/p?q#f", "host.com"),
        ("HTTPS://WWW.Reddit.COM./x", "reddit.com"),
        ("https://www.reddit.com/r/swift?sort=new#top", "reddit.com"),
        ("//example.com", "example.com"), ("example.com:443", "example.com"), ("example.com:443/path", "example.com"),
        ("https://%65xample.com/", "example.com"), ("http://b%C3%BCcher.example/", "xn--bcher-kva.example"),
        ("https:example.com", "example.com"), ("https:\\\\example.com\\x", "example.com"), ("ws://chat.example.org", "chat.example.org"),
        ("user@mail.example.com", "mail.example.com"), ("https://a@b@example.com/", "example.com"),
        ("ht\ttps://exa\nmple.com/", "example.com"),
        // Code points, not characters: "/" and a combining mark form one Character.
        ("https://example.com/\u{0301}x", "example.com"), ("http:/\u{0345}x.example.com", "xn--x-fmb.example.com"),
        ("www.example.co.uk", "example.co.uk"),
        // What is left after www. would be a public suffix: the www. name is a site of its own.
        ("www.co.uk", "www.co.uk"), ("www.com", "www.com"), ("www.ck", "www.ck"),
        ("*.www.example.com", "example.com"), ("http://www.example.com.:80", "example.com"),
    ])
    func findsTheHostOfAPastedURL(input: String, expected: String) throws {
        #expect(try systemParser.parse(input).value == expected)
    }

    @Test(arguments: [
        ("", "empty"), ("   ", "empty"), ("exa mple.com", "\" \" is not allowed"), ("example", "two labels"),
        ("a..b.com", "empty label"), (".example.com", "empty label"), ("example.com..", "empty label"),
        ("-bad.com", "hyphen"), ("bad-.com", "hyphen"), ("under_score.com", "\"_\" is not allowed"),
        (String(repeating: "a", count: 64) + ".com", "longer than 63"), ("foo.localhost", "localhost"),
        ("1.2.3.4", "IP address"), ("[::1]", "IP address"), ("[::1]:80", "IP address"), ("http://[2001:db8::1]/", "IP address"),
        ("0x7f.1", "IP address"), ("2130706433", "IP address"), ("0177.0.0.1", "IP address"), ("https://127.1/", "IP address"),
        ("example.123", "ends in a number"), ("1.2.3.4.5", "ends in a number"), ("[::1", "not closed"), ("[1:2:3]", "IPv6"),
        ("example.com:99999", "out of range"), ("example.com:http", "not a port"), ("https://user@/", "no host"),
        ("file:///etc/hosts", "file"), ("ssh://host.example.com", "not a web address"),
        ("ex\u{E000}ample.com", "U+E000"), ("exa\u{FFFD}mple.com", "cannot appear"), ("ab%zz.com", "\"%\" is not allowed"),
        ("https://example.com%2Fevil.com/", "\"/\" is not allowed"),
    ])
    func refuses(input: String, reason: String) {
        do {
            let name = try systemParser.parse(input)
            Issue.record("accepted \(input) as \(name)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.input == input)
        }
    }

    @Test(
        arguments: [
            // Punycode no browser produces: invalid, and decoding to a look-alike of "a".
            ("xn--zz.com", "not valid punycode"), ("xn--a-ecp.ru", "decodes to"), ("xn--.com", "punycode"),
            ("xn--ab.com", "decodes to"), ("xn--bcher-KVA.example.", nil),
            // A ZWJ outside the scripts that use it, and a ZWNJ with nothing to join.
            ("a\u{200D}b.com", "zero-width joiner"), ("a\u{200C}b.com", "zero-width joiner"),
            // Bidi: a right-to-left label starting with a European digit, a label mixing Hebrew and Latin.
            ("1שלום.com", "bidi"), ("שלוםabc.com", "bidi"), ("\u{0301}abc.com", "combining mark"),
        ] as [(String, String?)])
    func refusesWhatBrowsersRefuse(input: String, reason: String?) {
        guard let reason else {
            #expect(throws: Never.self) { try systemParser.parse(input) }
            return
        }
        do {
            let name = try systemParser.parse(input)
            Issue.record("accepted \(input) as \(name)")
        } catch {
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    @Test func hugeInputIsRefusedWithItsSize() throws {
        let huge = "https://" + String(repeating: "a.", count: 100_000) + "com/"
        let error = try #require(throws: DomainName.InvalidError.self) { try systemParser.parse(huge) }
        #expect(error.reason == "it is 200012 bytes long; a name or address is at most 65536")
        #expect(error.input.count == 65)
        // Below the bound, a long host is still refused as too long, not cut.
        let longHost = "https://" + String(repeating: "ä", count: 20_000) + ".com/" + String(repeating: "x", count: 20_000)
        let long = try #require(throws: DomainName.InvalidError.self) { try systemParser.parse(longHost) }
        #expect(long.reason == "it is longer than 253 characters")
    }

    @Test func explainsSpoofingPunycode() throws {
        let error = try #require(throws: DomainName.InvalidError.self) { try systemParser.parse("xn--a-ecp.ru") }
        #expect(
            error.description == "\"xn--a-ecp.ru\" is not a valid domain name: label \"xn--a-ecp\" decodes to \"a⒈\", "
                + "which cannot be a name: \"⒈\" (U+2488) cannot appear in a name")
        // Valid text in a form no browser writes: "bÜcher", an upper-case letter inside the punycode.
        let upper = try #require(throws: DomainName.InvalidError.self) { try systemParser.parse("xn--bcher-2pa.example") }
        #expect(upper.reason.contains("browsers would write as \"xn--bcher-kva\""), "\(upper)")
    }

    @Test(arguments: [
        ("co.uk", "co.uk is a public suffix: it would block every site under it"),
        ("com", "a site needs at least two labels"),
        ("github.io", "github.io is a public suffix"),
        ("CO.UK.", "co.uk is a public suffix"), ("公司.cn", "公司.cn (xn--55qx5d.cn) is a public suffix"),
        ("anything.ck", "anything.ck is a public suffix"), ("other.kawasaki.jp", "other.kawasaki.jp is a public suffix"),
    ])
    func refusesPublicSuffixes(input: String, reason: String) {
        #expect(throws: DomainName.InvalidError.self) { try systemParser.parse(input) }
        do { _ = try systemParser.parse(input) } catch { #expect(error.reason.contains(reason), "\(error)") }
    }

    @Test func acceptsWhatIsRegisteredUnderASuffix() throws {
        #expect(try systemParser.parse("bbc.co.uk").value == "bbc.co.uk")
        #expect(try systemParser.parse("me.github.io").value == "me.github.io")
        // A user site called www: dropping www. would leave the public suffix.
        #expect(try systemParser.parse("https://www.github.io/").value == "www.github.io")
        #expect(try systemParser.parse("x.anything.ck").value == "x.anything.ck")
        #expect(try systemParser.parse("example.zzz").value == "example.zzz")
    }

    @Test func withoutTheListNoSuffixIsRefused() throws {
        let (parser, problem) = DomainNameParser.system(listPath: "/nonexistent/public_suffix_list.dat")
        #expect(parser.publicSuffixes == nil)
        #expect(problem?.description.contains("is missing") == true)
        #expect(problem?.description.contains("not refused") == true)
        #expect(try parser.parse("co.uk").value == "co.uk")
        #expect(try parser.parse("www.reddit.com").value == "reddit.com")
        #expect(throws: DomainName.InvalidError.self) { try parser.parse("com") }
    }
}

@Suite struct LookupNameTests {
    @Test func keepsWhatABrowserLooksUp() throws {
        #expect(try systemParser.lookupName("https://www.reddit.com/r/x").value == "www.reddit.com")
        #expect(try systemParser.lookupName("co.uk").value == "co.uk")
        #expect(try systemParser.lookupName("ＥＸＡＭＰＬＥ.com.").value == "example.com")
        #expect(throws: DomainName.InvalidError.self) { try systemParser.lookupName("1.2.3.4") }
    }
}
