/// What one profile blocks, fully expanded: rules, exceptions, addresses, mode and apps.
///
/// Sessions keep their own copy, so a block in force does not depend on files that may change
/// or disappear while it runs.
public struct BlockRules: Sendable, Equatable, Codable {
    /// Blocked domains (each with its subdomains); in allowlist mode, the allowed ones.
    public let block: DomainSet
    /// Exceptions (each with its subdomains); unused in allowlist mode.
    public let allow: DomainSet
    /// Blocked addresses and networks; in allowlist mode, the allowed ones.
    public let addresses: [IPNetwork]
    /// Blocklist or allowlist (of sites; apps are blocked either way).
    public let mode: ProfileMode
    /// How many names `exactNames` lists, counted once: status and history show it for every
    /// session, and listing 100 000 names to count them would make every status call cost that.
    public let exactNameCount: Int
    /// Imported blocklists, each as the version in force for this session (sorted, unique);
    /// their names block with all their subdomains, only through mechanisms that match whole
    /// subtrees of names (the DNS filter). Unused in allowlist mode.
    public let lists: [BlocklistReference]
    /// Applications blocked, as the app catalog found them when the rules were made (the
    /// session's own snapshot: the executables found then), sorted by id. `strict` is not set
    /// here: it is the session's (`SessionSet.desiredBlock`).
    public var apps: [BlockedApp]
    /// Apps the profile names that were not found installed when the rules were made (not an
    /// error: a system profile lists launchers that most machines lack), for status.
    public var missingApps: [String]
    /// Path rules, for the browser companion only (sorted, unique).
    public var paths: [PathRule] = []
    /// Exceptions to the path rules and to the names, for the browser companion (sorted, unique).
    public var allowPaths: [PathRule] = []
    /// Keyword rules, for the browser companion only (sorted, unique).
    public var keywords: [KeywordRule] = []

    /// The rule name `check` reports for a name an allowlist leaves out.
    public static let notAllowed = "(not on the allowlist)"

    /// Creates rules.
    public init(
        block: DomainSet, allow: DomainSet = DomainSet([]), addresses: [IPNetwork] = [], mode: ProfileMode = .blocklist,
        apps: [BlockedApp] = [], missingApps: [String] = [], lists: [BlocklistReference] = []
    ) {
        self.block = block
        self.allow = allow
        self.addresses = Array(Set(addresses)).sorted()
        self.mode = mode
        self.apps = BlockedApp.union(apps)
        self.missingApps = Array(Set(missingApps)).sorted()
        self.lists = mode == .blocklist ? Array(Set(lists)).sorted() : []
        exactNameCount = Self.countExactNames(block: block, allow: allow, mode: mode)
    }

    /// The same rules holding other list versions (lists do not change the exact names).
    private init(_ rules: BlockRules, lists: [BlocklistReference]) {
        block = rules.block
        allow = rules.allow
        addresses = rules.addresses
        mode = rules.mode
        apps = rules.apps
        missingApps = rules.missingApps
        exactNameCount = rules.exactNameCount
        paths = rules.paths
        allowPaths = rules.allowPaths
        keywords = rules.keywords
        self.lists = mode == .blocklist ? Array(Set(lists)).sorted() : []
    }

    /// These rules with `lists` as the imported list versions they hold.
    public func withLists(_ lists: [BlocklistReference]) -> BlockRules { BlockRules(self, lists: lists) }

    public static func == (a: BlockRules, b: BlockRules) -> Bool {
        a.mode == b.mode && a.exactNameCount == b.exactNameCount && a.lists == b.lists && a.addresses == b.addresses && a.apps == b.apps
            && a.missingApps == b.missingApps && a.paths == b.paths && a.allowPaths == b.allowPaths && a.keywords == b.keywords
            && a.block == b.block
            && a.allow == b.allow
    }

    private static func countExactNames(block: DomainSet, allow: DomainSet, mode: ProfileMode) -> Int {
        guard mode == .blocklist else { return 0 }
        var count = 0
        let probe = BlockRules.probe(block: block, allow: allow)
        block.forEach { rule in
            if allow.isEmpty {
                count += rule.hasPrefix("www.") ? 1 : 2
            } else if probe(rule) != nil {
                count += 1
                if let twin = DomainName(normalized: rule).wwwTwin, probe(twin) != nil { count += 1 }
            }
        }
        return count
    }

    /// `blockingRule(for:)` for rules not built yet.
    private static func probe(block: DomainSet, allow: DomainSet) -> (String) -> String? {
        { name in
            guard let blocked = block.match(name) else { return nil }
            if let allowed = allow.match(name), allowed.count >= blocked.count { return nil }
            return blocked
        }
    }

    private enum CodingKeys: String, CodingKey { case block, allow, addresses, mode, apps, missingApps, lists, paths, allowPaths, keywords }

    // Sessions saved before addresses, modes and apps existed must still load after an upgrade.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            block: try container.decode(DomainSet.self, forKey: .block),
            allow: try container.decodeIfPresent(DomainSet.self, forKey: .allow) ?? DomainSet([]),
            addresses: try container.decodeIfPresent([IPNetwork].self, forKey: .addresses) ?? [],
            mode: try container.decodeIfPresent(ProfileMode.self, forKey: .mode) ?? .blocklist,
            apps: try container.decodeIfPresent([BlockedApp].self, forKey: .apps) ?? [],
            missingApps: try container.decodeIfPresent([String].self, forKey: .missingApps) ?? [],
            lists: try container.decodeIfPresent([BlocklistReference].self, forKey: .lists) ?? [])
        paths = try container.decodeIfPresent([PathRule].self, forKey: .paths) ?? []
        allowPaths = try container.decodeIfPresent([PathRule].self, forKey: .allowPaths) ?? []
        keywords = try container.decodeIfPresent([KeywordRule].self, forKey: .keywords) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(block, forKey: .block)
        try container.encode(allow, forKey: .allow)
        try container.encode(addresses, forKey: .addresses)
        try container.encode(mode, forKey: .mode)
        if !lists.isEmpty { try container.encode(lists, forKey: .lists) }
        if !apps.isEmpty { try container.encode(apps, forKey: .apps) }
        if !missingApps.isEmpty { try container.encode(missingApps, forKey: .missingApps) }
        if !paths.isEmpty { try container.encode(paths, forKey: .paths) }
        if !allowPaths.isEmpty { try container.encode(allowPaths, forKey: .allowPaths) }
        if !keywords.isEmpty { try container.encode(keywords, forKey: .keywords) }
    }

    /// The blocked app that stands for the app `id` with these executables (any one path in
    /// common counts: the same program named another way), or nil when none does.
    public func blockedApp(id: String, executables: some Sequence<String>) -> BlockedApp? {
        if let byID = apps.first(where: { $0.id == id }) { return byID }
        let paths = Set(executables)
        guard !paths.isEmpty else { return nil }
        return apps.first { $0.executables.contains(where: paths.contains) }
    }

    /// The rule blocking `name`, or nil when it is not blocked. The most specific of the
    /// matching block and allow rules wins; an allow rule wins a tie. In allowlist mode every
    /// name the list does not cover is blocked.
    public func blockingRule(for name: String) -> String? {
        if mode == .allowlist { return block.match(name) == nil ? BlockRules.notAllowed : nil }
        guard let blocked = block.match(name) else { return nil }
        if let allowed = allow.match(name), allowed.count >= blocked.count { return nil }
        return blocked
    }

    /// `blockingRule(for:)` with the session's imported lists too, each found by `lists`
    /// (a list that cannot be found blocks nothing). A list's rule blocks unless one of the
    /// list's own exceptions or one of the profile's exceptions is at least as specific. Returns
    /// the rule and the list it came from (nil for the profile's own rules); the most specific
    /// rule wins.
    public func blockingRule(for name: String, lists resolve: (BlocklistReference) -> Blocklist?) -> (rule: String, list: String?)? {
        let own = blockingRule(for: name)
        if mode == .allowlist { return own.map { ($0, nil) } }
        var best: (rule: String, list: String?)? = own.map { ($0, nil) }
        guard !lists.isEmpty else { return best }
        let profileException = allow.match(name)
        for reference in lists {
            guard let list = resolve(reference), let rule = list.blockingRule(for: name) else { continue }
            if let profileException, profileException.count >= rule.count { continue }
            if best == nil || rule.count > best!.rule.count { best = (rule, reference.name) }
        }
        return best
    }

    /// The names an exact-name mechanism (the hosts file) must list: every block rule that is
    /// itself blocked, plus its `www.` twin unless an exception covers the twin. Empty in
    /// allowlist mode, which a list of names cannot express. Sorted and unique.
    public var exactNames: NameList {
        guard mode == .blocklist else { return [] }
        // Without exceptions every rule and its twin are blocked; skipping the per-name
        // matching matters for large profiles, whose names are listed at every change.
        if allow.isEmpty { return Self.withTwins(block) }
        var names: [String] = []
        for rule in block.sorted where blockingRule(for: rule) != nil {
            names.append(rule)
            if let twin = DomainName(normalized: rule).wwwTwin, blockingRule(for: twin) != nil { names.append(twin) }
        }
        return NameList(names)
    }

    /// In allowlist mode, the names to allow (with `www.` twins); empty otherwise.
    public var allowedNames: [String] { mode == .allowlist ? Array(Self.withTwins(block)) : [] }

    /// The rules of `set` and their `www.` twins, sorted and unique.
    private static func withTwins(_ set: DomainSet) -> NameList {
        NameList(addingWWWTwinsTo: NameList(collecting: set.forEach))
    }

    /// The rules after a change to a strict session's profile: they may only get stricter. Two
    /// blocklists unite (exceptions of one side never unblock what the other blocks); two
    /// allowlists keep only what both allow; a change of mode waits for the session to end.
    /// Apps always unite (an app blocked stays blocked, with every executable found for it),
    /// and the running policy of an app both sides block is the stronger one. `lists` finds the
    /// imported lists both sides hold, so that a new exception cannot unblock a name one of
    /// them blocks.
    public func merged(with other: BlockRules, lists resolve: (BlocklistReference) -> Blocklist? = { _ in nil }) -> BlockRules {
        let apps = BlockedApp.union(apps + other.apps)
        let missing = other.missingApps.filter { name in !apps.contains { $0.id == name } }
        switch (mode, other.mode) {
        case (.blocklist, .blocklist):
            let keptAllow =
                allow.sorted.filter { other.blockingRule(for: $0, lists: resolve) == nil }
                + other.allow.sorted.filter { blockingRule(for: $0, lists: resolve) == nil }
            // Every list version either side holds stays: a strict block never loses a name when
            // a list is imported again (whoever knows the versions may drop one the newer
            // covers, `droppingLists`).
            return BlockRules(
                block: DomainSet(block.sorted + other.block.sorted), allow: DomainSet(keptAllow),
                addresses: addresses + other.addresses, apps: apps, missingApps: missing, lists: lists + other.lists)
        case (.allowlist, .allowlist):
            let otherAddresses = Set(other.addresses)
            return BlockRules(
                block: DomainSet(block.sorted.filter { other.block.containsExactly($0) }),
                addresses: addresses.filter { otherAddresses.contains($0) }, mode: .allowlist, apps: apps,
                missingApps: missing)
        default:
            return BlockRules(
                block: block, allow: allow, addresses: addresses, mode: mode, apps: apps, missingApps: missingApps,
                lists: lists)
        }
    }

    /// The rules without the list versions `drop` names (a strict block leaving an older
    /// version of a list that a newer one it also holds covers completely).
    public func droppingLists(where drop: (BlocklistReference) -> Bool) -> BlockRules {
        withLists(lists.filter { !drop($0) })
    }
}
