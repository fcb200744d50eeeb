/// A set of domain rules with suffix matching: a rule `reddit.com` matches `reddit.com` and
/// every name below it, such as `old.reddit.com`.
public struct DomainSet: Sendable, Equatable, Codable {
    private var rules: Set<String>

    /// Creates a set from normalised names.
    public init(_ names: some Sequence<String>) { rules = Set(names) }

    /// Number of rules.
    public var count: Int { rules.count }

    /// The rules, sorted.
    public var sorted: [String] { rules.sorted() }

    /// True when there are no rules.
    public var isEmpty: Bool { rules.isEmpty }

    /// The most specific rule matching `name` (which must be normalised), or nil.
    /// Costs one hash lookup per label, whatever the size of the set.
    public func match(_ name: String) -> String? {
        for suffix in DomainName.suffixes(of: name) where rules.contains(String(suffix)) {
            return String(suffix)
        }
        return nil
    }

    /// True when `name` is an exact rule of the set.
    public func containsExactly(_ name: String) -> Bool { rules.contains(name) }
}
