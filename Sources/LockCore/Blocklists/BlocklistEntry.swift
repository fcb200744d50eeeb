/// One usable rule from a blocklist: a normalised name that blocks itself and its subdomains,
/// or an exception (`@@||domain^`) that keeps it reachable.
public struct BlocklistEntry: Sendable, Hashable {
    /// The normalised name (lowercase ASCII, punycode, no trailing dot).
    public var name: String
    /// True for an exception (allow) rule.
    public var isException: Bool

    /// Creates an entry.
    public init(name: String, isException: Bool = false) {
        self.name = name
        self.isException = isException
    }
}
