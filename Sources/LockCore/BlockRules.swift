/// What one profile blocks, fully expanded: rules and exceptions.
///
/// Sessions keep their own copy, so a block in force does not depend on files that may change
/// or disappear while it runs.
public struct BlockRules: Sendable, Equatable, Codable {
    /// Blocked domains (each with its subdomains).
    public var block: DomainSet
    /// Exceptions (each with its subdomains).
    public var allow: DomainSet

    /// Creates rules.
    public init(block: DomainSet, allow: DomainSet = DomainSet([])) {
        self.block = block
        self.allow = allow
    }

    /// The rule blocking `name`, or nil when it is not blocked. The most specific of the
    /// matching block and allow rules wins; an allow rule wins a tie.
    public func blockingRule(for name: String) -> String? {
        guard let blocked = block.match(name) else { return nil }
        if let allowed = allow.match(name), allowed.count >= blocked.count { return nil }
        return blocked
    }

    /// The names an exact-name mechanism (the hosts file) must list: every block rule that is
    /// itself blocked, plus its `www.` twin unless an exception covers the twin.
    public var exactNames: [String] {
        // Without exceptions every rule and its twin are blocked; skipping the per-name
        // matching matters for large profiles, whose names are listed at every change.
        if allow.isEmpty {
            return block.sorted.flatMap { rule in [rule] + (DomainName(normalized: rule).wwwTwin.map { [$0] } ?? []) }
        }
        var names: [String] = []
        for rule in block.sorted where blockingRule(for: rule) != nil {
            names.append(rule)
            if let twin = DomainName(normalized: rule).wwwTwin, blockingRule(for: twin) != nil { names.append(twin) }
        }
        return names
    }

    /// Rules and exceptions together: a name is blocked if either side blocks it; exceptions of
    /// one side never unblock what the other side blocks on its own.
    public func merged(with other: BlockRules) -> BlockRules {
        let keptAllow = allow.sorted.filter { other.blockingRule(for: $0) == nil }
            + other.allow.sorted.filter { blockingRule(for: $0) == nil }
        return BlockRules(block: DomainSet(block.sorted + other.block.sorted), allow: DomainSet(keptAllow))
    }
}
