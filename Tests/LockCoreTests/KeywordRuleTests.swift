import Foundation
import LockCore
import Testing

/// Keyword rules: whole words of an address's host, path and query; only the companion enforces them.
@Suite("Browser companion: keyword rules")
struct KeywordRuleTests {
    @Test func keywordsMatchWholeWordsOfHostPathAndQueryInAnyCase() throws {
        let shorts = try KeywordRule(parsing: " Shorts ")
        #expect(shorts.word == "shorts" && shorts.ruleName == "keyword shorts")
        for text in [
            "www.youtube.com/results?search_query=SHORTS", "youtube.com/shorts/abc", "shorts.example.org/", "x.org/?q=funny+shorts",
        ] {
            #expect(shorts.matches(text), "\(text)")
        }
        for text in ["youtube.com/watch?v=1", "x.org/shortstop", "x.org/myshorts", "x.org/shorts2"] {
            #expect(!shorts.matches(text), "\(text)")
        }
        let rules = [shorts]
        #expect(
            KeywordRule.blockingKeyword(host: "youtube.com", path: "/results", query: "q=shorts", keywords: rules, allowPaths: []) == shorts
        )
        #expect(KeywordRule.blockingKeyword(host: "youtube.com", path: "/watch", query: "v=1", keywords: rules, allowPaths: []) == nil)
        // An exception for the page wins over a keyword.
        let (host, path) = try PathRule.split("youtube.com/results")
        let allow = [PathRule(host: DomainName(normalized: host), path: path)]
        #expect(
            KeywordRule.blockingKeyword(host: "youtube.com", path: "/results", query: "q=shorts", keywords: rules, allowPaths: allow) == nil
        )
    }

    @Test func badKeywordsAreRefusedWithWhy() {
        for text in ["a", "two words", "-dash", "dot.", "schön", "a/b", String(repeating: "a", count: 65)] {
            #expect(throws: FieldError.self, "\(text)") { try KeywordRule(parsing: text) }
        }
        #expect(throws: Never.self) { try KeywordRule(parsing: "news.ycombinator") }
    }

    @Test func removingAKeywordFromAStrictBlockIsAWeakeningAndKeywordsSurviveCoding() throws {
        var old = BlockRules(block: DomainSet([]))
        old.keywords = [try KeywordRule(parsing: "shorts")]
        var new = old
        #expect(old.weakenings(to: new).isEmpty)
        new.keywords = []
        #expect(old.weakenings(to: new) == ["unblocks keyword shorts"])
        let decoded = try JSONDecoder().decode(BlockRules.self, from: JSONEncoder().encode(old))
        #expect(decoded.keywords == old.keywords && decoded == old)
        // A corrupt keyword in saved rules is an error, not a silently different rule.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([KeywordRule].self, from: Data(#"["a b"]"#.utf8)) }
    }
}
