/// A set of domain rules with suffix matching: a rule `reddit.com` matches `reddit.com` and
/// every name below it, such as `old.reddit.com`.
///
/// The rules are kept once, compactly (`DomainSuffixSet`), and copies share them: a profile's
/// expansion, the sessions started from it, the enforcers and the API all hold the same storage,
/// so a 100 000-name profile costs its names once, and comparing two copies costs nothing.
public struct DomainSet: Sendable, Equatable, Codable {
    private let rules: DomainSuffixSet

    /// Creates a set from normalised names (every rule kept, also those a parent covers).
    public init(_ names: some Sequence<String>) { rules = DomainSuffixSet(names, collapsingCovered: false) }

    /// The empty set.
    public static let empty = DomainSet([])

    /// Number of rules.
    public var count: Int { rules.count }

    /// The rules, sorted (this lists them all: for small sets, files and the full profile view).
    public var sorted: [String] { rules.sorted }

    /// True when there are no rules.
    public var isEmpty: Bool { rules.isEmpty }

    /// Calls `body` with every rule, in no particular order, without sorting them.
    public func forEach(_ body: (String) -> Void) { rules.forEach(body) }

    /// The most specific rule matching `name` (which must be normalised), or nil.
    /// Costs one hash lookup per label, whatever the size of the set.
    public func match(_ name: String) -> String? { rules.match(name) }

    /// True when `name` is an exact rule of the set.
    public func containsExactly(_ name: String) -> Bool { rules.containsExactly(name) }

    /// The compact set itself, for enforcers that match names in bulk (the DNS filter).
    public var suffixSet: DomainSuffixSet { rules }

    public static func == (a: DomainSet, b: DomainSet) -> Bool {
        if a.rules.isSameStorage(as: b.rules) { return true }
        guard a.count == b.count else { return false }
        var equal = true
        a.rules.forEach { name in if equal, !b.rules.containsExactly(name) { equal = false } }
        return equal
    }

    // The same JSON as when the rules were a `Set<String>`: `{"rules": [...]}`.
    private enum CodingKeys: String, CodingKey { case rules }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode([String].self, forKey: .rules))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rules.sorted, forKey: .rules)
    }
}
