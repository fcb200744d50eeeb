/// A word that blocks every web address containing it (`shorts`): only the browser companion
/// can enforce it, since only it sees addresses.
///
/// A keyword is 2–64 ASCII letters, digits, `-`, `_` or `.` (starting and ending with a letter
/// or digit), kept in lower case. It matches an address's host, path and query, case-insensitively,
/// as a whole word: the characters around it are not ASCII letters or digits. So `shorts` blocks
/// `youtube.com/shorts/x`, `…/results?search_query=shorts` and `shorts.example.org`, not
/// `/shortstop` or `/myshorts`. The address is matched as the browser sends it: percent-encoded
/// text is not decoded (the extension's network rules see it so, and `check` agrees with them).
public struct KeywordRule: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The keyword, in lower case.
    public let word: String

    /// The longest keyword accepted.
    public static let maximumLength = 64

    /// Checks and normalises `text`.
    public init(parsing text: String, field: String = "keywords") throws(FieldError) {
        let word = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()).lowercased()
        guard word.count >= 2, word.count <= Self.maximumLength else {
            throw FieldError(field: field, value: String(text.prefix(40)), reason: "a keyword has 2 to \(Self.maximumLength) characters")
        }
        guard word.unicodeScalars.allSatisfy({ Self.isWordCharacter($0) || "-_.".unicodeScalars.contains($0) }),
            let first = word.unicodeScalars.first, let last = word.unicodeScalars.last, Self.isWordCharacter(first),
            Self.isWordCharacter(last)
        else {
            throw FieldError(
                field: field, value: text,
                reason: "\"\(text)\" is not a keyword: ASCII letters, digits, '-', '_' or '.', starting and ending with a letter or digit")
        }
        self.word = word
    }

    public var description: String { word }

    /// How `check`, insights and the shield name the rule.
    public var ruleName: String { "keyword \(word)" }

    public static func < (a: KeywordRule, b: KeywordRule) -> Bool { a.word < b.word }

    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// `rules` in their first order, each once.
    public static func unique(_ rules: [KeywordRule]) -> [KeywordRule] { rules.uniqued() }

    /// True when the keyword is a whole word of `text` (an address's host, path and query).
    public func matches(_ text: String) -> Bool {
        let haystack = Array(text.lowercased().unicodeScalars)
        let needle = Array(word.unicodeScalars)
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            guard Array(haystack[start..<(start + needle.count)]) == needle else { continue }
            let before = start == 0 || !Self.isWordCharacter(haystack[start - 1])
            let end = start + needle.count
            let after = end == haystack.count || !Self.isWordCharacter(haystack[end])
            if before && after { return true }
        }
        return false
    }

    /// The first keyword of `keywords` that `host`, `path` and `query` (without `?`) contain,
    /// unless an exception of `allowPaths` covers the page.
    public static func blockingKeyword(host: String, path: String, query: String, keywords: [KeywordRule], allowPaths: [PathRule])
        -> KeywordRule?
    {
        let text = host + path + (query.isEmpty ? "" : "?" + query)
        guard let keyword = keywords.first(where: { $0.matches(text) }) else { return nil }
        if allowPaths.contains(where: { $0.covers(host: host, path: path) }) { return nil }
        return keyword
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try KeywordRule(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(word)
    }
}
