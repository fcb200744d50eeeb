import Foundation
import LockCore
import Testing

/// The ASCII rules and the stored form; what people type is parsed by `DomainNameParser`
/// (LockNamesTests).
@Suite struct DomainNameTests {
    @Test(arguments: ["reddit.com", "xn--bcher-kva.example", "a-b.c0m", "xn--hxajbheg2az3al.xn--jxalpdlp"])
    func acceptsNormalisedNames(text: String) throws {
        #expect(try DomainName(validatingNormalized: text).value == text)
    }

    @Test(arguments: [
        ("", "empty"), ("exa mple.com", "not allowed"), ("example", "two labels"), ("a..b.com", "empty label"),
        ("-bad.com", "hyphen"), ("bad-.com", "hyphen"), ("1.2.3.4", "IP address"), ("foo.localhost", "localhost"),
        ("under_score.com", "not allowed"), (String(repeating: "a", count: 64) + ".com", "63"), ("example.123", "digits"),
        ("bücher.example", "not allowed"), ("Reddit.com", "upper-case"), ("reddit.com.", "trailing dot"),
    ])
    func refusesWhatIsNotNormalised(text: String, reason: String) {
        do {
            let name = try DomainName(validatingNormalized: text)
            Issue.record("accepted \(text) as \(name)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.input == text)
        }
    }

    @Test func totalLength() {
        let long = Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".") + ".com"
        #expect(throws: DomainName.InvalidError.self) { try DomainName(validatingNormalized: long) }
        let longest = Array(repeating: String(repeating: "a", count: 62), count: 4).joined(separator: ".")  // 251
        #expect(throws: Never.self) { try DomainName(validatingNormalized: longest) }
    }

    @Test func suffixesAndTwins() throws {
        #expect(DomainName.suffixes(of: "a.b.example.com") == ["a.b.example.com", "b.example.com", "example.com", "com"])
        #expect(DomainName(normalized: "reddit.com").wwwTwin == "www.reddit.com")
        #expect(DomainName(normalized: "www.reddit.com").wwwTwin == nil)
    }

    @Test func codedAsTheTextAndValidatedWhenRead() throws {
        let encoded = try JSONEncoder().encode([DomainName(normalized: "xn--bcher-kva.example")])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"xn--bcher-kva.example\"]")
        #expect(try JSONDecoder().decode([DomainName].self, from: encoded).map(\.value) == ["xn--bcher-kva.example"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DomainName].self, from: Data("[\"bad..name\"]".utf8)) }
        // Typed forms are parsed by the daemon, never accepted from stored or sent JSON.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([DomainName].self, from: Data("[\"Bücher.example\"]".utf8)) }
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
