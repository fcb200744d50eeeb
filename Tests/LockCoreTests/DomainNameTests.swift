import Foundation
import LockCore
import Testing

@Suite struct DomainNameTests {
    @Test(arguments: [
        ("reddit.com", "reddit.com"), ("Reddit.COM.", "reddit.com"), ("  news.ycombinator.com\n", "news.ycombinator.com"),
        ("https://www.reddit.com/r/swift?sort=new#top", "www.reddit.com"), ("http://user:pw@example.com:8080/x", "example.com"),
        ("*.example.org", "example.org"), ("//cdn.example.net/a.js", "cdn.example.net"),
        ("bücher.example", "xn--bcher-kva.example"), ("MÜNCHEN.de", "xn--mnchen-3ya.de"), ("日本。jp", "xn--wgv71a.jp"),
        ("παράδειγμα.δοκιμή", "xn--hxajbheg2az3al.xn--jxalpdlp"), ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("a-b.c0m", "a-b.c0m"),
    ])
    func normalises(input: String, expected: String) throws {
        #expect(try DomainName(parsing: input).value == expected)
    }

    @Test(arguments: [
        ("", "empty"), ("exa mple.com", "not allowed"), ("example", "two labels"), ("a..b.com", "empty label"),
        ("-bad.com", "hyphen"), ("bad-.com", "hyphen"), ("1.2.3.4", "IP address"), ("[::1]:80", "IP address"),
        ("foo.localhost", "localhost"), ("under_score.com", "not allowed"), (String(repeating: "a", count: 64) + ".com", "63"),
        ("example.123", "digits"), ("ex😀ample.com", "cannot appear"),
    ])
    func refuses(input: String, reason: String) {
        do {
            let name = try DomainName(parsing: input)
            Issue.record("accepted \(input) as \(name)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.input == input)
        }
    }

    @Test func totalLength() {
        let long = Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".") + ".com"
        #expect(throws: DomainName.InvalidError.self) { try DomainName(parsing: long) }
    }

    @Test func punycodeVectorsFromRFC3492() {
        // Sample strings (A) Arabic and (L) Japanese from RFC 3492, section 7.1.
        let arabic = "\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}"
        #expect(Punycode.encode(arabic) == "egbpdaj6bu4bxfgehfvwxn")
        #expect(Punycode.encode("3年B組金八先生") == "3B-ww4c5e180e575a65lsy2b")
        #expect(Punycode.encode("abc") == "abc-")
    }

    @Test func suffixesAndTwins() throws {
        #expect(DomainName.suffixes(of: "a.b.example.com") == ["a.b.example.com", "b.example.com", "example.com", "com"])
        #expect(try DomainName(parsing: "reddit.com").wwwTwin == "www.reddit.com")
        #expect(try DomainName(parsing: "www.reddit.com").wwwTwin == nil)
    }

    @Test func codedAsTheTextAndValidatedWhenRead() throws {
        let encoded = try JSONEncoder().encode([try DomainName(parsing: "Bücher.example")])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"xn--bcher-kva.example\"]")
        #expect(try JSONDecoder().decode([DomainName].self, from: encoded).map(\.value) == ["xn--bcher-kva.example"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DomainName].self, from: Data("[\"bad..name\"]".utf8)) }
    }

    @Test func domainSetMatchesSuffixes() {
        let set = DomainSet(["reddit.com", "news.ycombinator.com"])
        #expect(set.match("reddit.com") == "reddit.com")
        #expect(set.match("old.reddit.com") == "reddit.com")
        #expect(set.match("notreddit.com") == nil)
        #expect(set.match("ycombinator.com") == nil)
        #expect(set.match("x.news.ycombinator.com") == "news.ycombinator.com")
    }
}
