/// The Public Suffix List (publicsuffix.org): the suffixes under which anyone can register a
/// name (`com`, `co.uk`, and in its private section hosts of user sites such as `github.io`).
/// Blocking one of them would block every site under it, so the parser refuses them.
///
/// Implements the list's algorithm: a rule matches a name whose last labels equal the rule's,
/// `*` matching any one label; exception rules (`!www.ck`) win over all others and give back
/// one label; otherwise the matching rule with the most labels prevails, and when none matches
/// the implicit rule `*` (the last label) does.
public struct PublicSuffixList: Sendable {
    private struct Node: Sendable {
        var children: [Substring: Int] = [:]
        var isRule = false
        var isException = false
    }

    private var nodes = [Node()]
    /// How many rules were read.
    public private(set) var ruleCount = 0
    /// Rules that could not be used (not a valid name even for UTS 46); normally none.
    public private(set) var unusableRules: [String] = []

    /// Parses the list's text format: one rule per line, up to the first white space; lines
    /// starting with `//` are comments. Rules in Unicode are converted to ASCII, as names are.
    public init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let isException = rule.hasPrefix("!")
            let body = isException ? rule.dropFirst() : rule
            var ascii = body.lowercased()
            if !body.allSatisfy(\.isASCII) {
                let converted = UTS46.toASCII(String(body))
                guard converted.isValid else {
                    unusableRules.append(String(rule))
                    continue
                }
                ascii = converted.text
            }
            let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
            guard !labels.contains(where: \.isEmpty) else {
                unusableRules.append(String(rule))
                continue
            }
            insert(labels.reversed(), isException: isException)
            ruleCount += 1
        }
    }

    private mutating func insert(_ labels: [Substring], isException: Bool) {
        var current = 0
        for label in labels {
            if let next = nodes[current].children[label] {
                current = next
            } else {
                nodes.append(Node())
                nodes[current].children[label] = nodes.count - 1
                current = nodes.count - 1
            }
        }
        if isException { nodes[current].isException = true } else { nodes[current].isRule = true }
    }

    /// The public suffix of `name` (ASCII, lower case, no trailing dot): `co.uk` for
    /// `bbc.co.uk`, `com` for `example.com`, `zzz` for `example.zzz` (the implicit rule).
    public func publicSuffix(of name: String) -> String {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        var longestRule = 1
        var longestException = 0
        var current = [0]
        for (depth, label) in labels.reversed().enumerated() {
            var next: [Int] = []
            for node in current {
                if let exact = nodes[node].children[label] { next.append(exact) }
                if let wildcard = nodes[node].children["*"] { next.append(wildcard) }
            }
            for node in next {
                if nodes[node].isRule { longestRule = max(longestRule, depth + 1) }
                if nodes[node].isException { longestException = max(longestException, depth + 1) }
            }
            if next.isEmpty { break }
            current = next
        }
        let count = longestException > 0 ? longestException - 1 : longestRule
        return labels.suffix(min(count, labels.count)).joined(separator: ".")
    }

    /// Whether `name` (ASCII, lower case, no trailing dot) is itself a public suffix.
    public func isPublicSuffix(_ name: String) -> Bool { publicSuffix(of: name) == name }
}
