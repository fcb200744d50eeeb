/// A rule about the paths of one site (`youtube.com/shorts`): only the browser companion can
/// enforce it, since every other enforcer sees names and addresses, never a URL's path.
///
/// It covers the site and its subdomains, and the path itself and everything below it, by
/// whole segments: `youtube.com/shorts` covers `/shorts` and `/shorts/x`, not `/shortsale`.
public struct PathRule: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The site, normalised.
    public var host: DomainName
    /// The path, starting with `/`, without a trailing `/` (so `/shorts/` and `/shorts` are one rule).
    public var path: String

    /// The longest rule text accepted (a URL's path, not a document).
    public static let maximumLength = 512

    /// Creates a rule of a normalised host and a checked path.
    public init(host: DomainName, path: String) {
        self.host = host
        self.path = path
    }

    /// Splits `text` (`youtube.com/shorts`) into the host as typed and the path, checking the
    /// path; the host is for the caller to normalise (names are parsed where ICU is).
    public static func split(_ text: String) throws(FieldError) -> (host: String, path: String) {
        let field = "paths"
        guard text.utf8.count <= maximumLength else {
            throw FieldError(
                field: field, value: String(text.prefix(40)) + "…", reason: "a path rule is longer than \(maximumLength) bytes")
        }
        var rest = Substring(text)
        for scheme in ["https://", "http://"] where rest.lowercased().hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
            throw FieldError(
                field: field, value: text,
                reason: "\"\(text)\" has no path (SITE/PATH, e.g. youtube.com/shorts); a whole site goes in domains")
        }
        let host = String(rest[..<slash])
        var path = String(rest[slash...])
        if let bad = path.first(where: {
            $0 == "?" || $0 == "#" || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true
        }) {
            throw FieldError(
                field: field, value: text,
                reason:
                    "\"\(text)\" has \(bad.isWhitespace ? "a space" : "\"\(bad)\"") in its path; a path rule is SITE/PATH without query or fragment"
            )
        }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard path != "/" else {
            throw FieldError(field: field, value: text, reason: "\"\(text)\" covers the whole site; put \(host) in domains instead")
        }
        return (host, path)
    }

    /// `youtube.com/shorts`.
    public var description: String { host.value + path }

    public static func < (a: PathRule, b: PathRule) -> Bool { (a.host, a.path) < (b.host, b.path) }

    /// True when the rule covers `path` on `host` (both as a browser sends them: the host in
    /// lower case, the path percent-encoded as typed).
    public func covers(host name: String, path: String) -> Bool {
        guard name == host.value || name.hasSuffix("." + host.value) else { return false }
        guard path.hasPrefix(self.path) else { return false }
        let rest = path.dropFirst(self.path.count)
        return rest.isEmpty || rest.first == "/"
    }

    /// How specific the rule is: a longer host or path wins over a shorter one.
    var specificity: (Int, Int) { (host.value.count, path.count) }

    /// The rule deciding `host` and `path` among `block` and `allow`: the most specific
    /// matching one (host first, then path), an allow rule winning a tie. Nil when no block rule
    /// covers it or an allow rule wins.
    public static func blockingRule(host: String, path: String, block: [PathRule], allow: [PathRule]) -> PathRule? {
        func best(_ rules: [PathRule]) -> PathRule? {
            rules.filter { $0.covers(host: host, path: path) }.max { $0.specificity < $1.specificity }
        }
        guard let blocked = best(block) else { return nil }
        if let allowed = best(allow), !(allowed.specificity < blocked.specificity) { return nil }
        return blocked
    }
}

extension PathRule {
    // Saved as the text it is written as (`youtube.com/shorts`), as names are.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            let (host, path) = try PathRule.split(text)
            self.init(host: try DomainName(validatingNormalized: host), path: path)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
