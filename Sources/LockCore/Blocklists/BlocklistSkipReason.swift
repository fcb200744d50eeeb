/// Why a blocklist parser could not use a rule. Every rule that is not a comment ends up either
/// as a name or counted under one of these, so nothing is dropped silently.
public enum BlocklistSkipReason: String, CaseIterable, Sendable, Hashable, Codable {
    /// An AdBlock regular expression (`/ads?\d+/`).
    case regex
    /// An AdBlock rule with `$options` (`||x.com^$third-party`): it means less than the whole name.
    case options
    /// A rule for a URL path or scheme (`||x.com/ads`, `|https://…`, `/banner/`), not a name.
    case path
    /// A wildcard inside a name (`ad*.x.com`); only a leading `*.` is understood.
    case wildcard
    /// A cosmetic (element hiding) rule: `##`, `#@#`, `#?#`, `#$#`, `#%#`.
    case elementHiding
    /// Syntax of some other format (`x.com^` without `||`, several words that are not a hosts line).
    case unsupportedSyntax
    /// An IP address where a name was expected.
    case address
    /// A hosts line mapping names to a real address: a redirect, not a block.
    case redirect
    /// A name of one label (`localhost`, `router`): blocking it would break local networks.
    case singleLabel
    /// Hosts-file boilerplate naming this machine (`localhost.localdomain`, `ip6-allnodes`).
    case localName
    /// Not a valid domain name, as the normaliser judged it.
    case invalidName
    /// A public suffix (`co.uk`, `github.io`): blocking it would block every site under it.
    case publicSuffix
    /// A line longer than the parser's limit; skipped without being held in memory.
    case tooLong
    /// Binary data: NUL or other control bytes, or bytes that are not UTF-8.
    case notText

    /// A short explanation for reports.
    public var explanation: String {
        switch self {
        case .regex: "regular expressions are not supported"
        case .options: "rules with $options apply to less than the whole name"
        case .path: "rules for URL paths or schemes are not names"
        case .wildcard: "wildcards inside a name are not supported (a leading *. is)"
        case .elementHiding: "element hiding rules concern pages, not names"
        case .unsupportedSyntax: "not hosts, plain-domain or ||domain^ syntax"
        case .address: "an IP address, not a name"
        case .redirect: "maps names to a real address rather than blocking them"
        case .singleLabel: "a single-label name would break local networks"
        case .localName: "a name of this machine (hosts file boilerplate)"
        case .invalidName: "not a valid domain name"
        case .publicSuffix: "a public suffix would block every site under it"
        case .tooLong: "line too long"
        case .notText: "binary data or invalid UTF-8"
        }
    }
}
