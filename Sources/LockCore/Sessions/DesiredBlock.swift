/// Everything that must be blocked right now: the union of all active sessions.
///
/// The fields but `lan` are what this machine's enforcers act on: the sessions that target
/// this machine (`BlockTarget.local`). `lan` holds, per LAN target, what the LAN enforcers
/// act on.
///
/// Enforcers are always handed the whole desired state, never incremental changes, so that a
/// missed or repeated call cannot make them drift from the truth.
///
/// Combining sessions: domains and addresses are united. Allowlists are intersected (a second
/// allowlist session can only narrow what is reachable); when only some sessions are
/// allowlists, the blocklist parts still apply on top of the allowlist.
public struct DesiredBlock: Sendable, Equatable, Codable {
    /// Blocked domain names, normalised (lowercase ASCII, punycode), sorted and unique, `www.`
    /// twins already included (and left out where a profile's exception covers the twin).
    /// Exact-name mechanisms (the hosts file) list exactly these; the firewall resolves exactly
    /// these. Kept compact: a large profile's block lists hundreds of thousands.
    public var domains: NameList

    /// Blocked addresses and networks given directly in profiles (`addresses = [...]`), host
    /// bits cleared, sorted and unique. Only the firewall enforcer can act on these.
    public var addresses: [IPNetwork]

    /// When set, allowlist mode: everything outgoing is refused except what this lists (plus
    /// loopback, DNS to the configured resolvers, DHCP and NTP). `nil` is ordinary blocklist mode.
    public var allowOnly: AllowList?

    /// Applications kept from running, one entry per app id (sessions blocking the same app
    /// are merged), sorted by id. Only the app enforcer acts on these.
    public var apps: [BlockedApp]

    /// Apps whose launches allowances count (`--opens`, `--cooldown`), one entry per id, sorted:
    /// not blocked, but every launch asks the daemon. An app in `apps` is blocked whatever this says.
    public var counted: [CountedApp]

    /// Every active session's rules, as they are (suffix rules, exceptions, mode, imported
    /// lists by reference): what
    /// mechanisms that match whole subtrees of names (the DNS filter) enforce, and what
    /// `verdict(for:)` reads.
    public var rules: [BlockRules]

    /// What the LAN enforcers block, per device group; empty when no session targets the LAN.
    public var lan: LANBlock

    /// Creates a desired state; domains and addresses are sorted and de-duplicated, apps merged
    /// by id.
    public init(
        domains: some Sequence<String> = [], addresses: some Sequence<IPNetwork> = [],
        allowOnly: AllowList? = nil, rules: [BlockRules] = [], apps: some Sequence<BlockedApp> = [BlockedApp](),
        lan: LANBlock = .empty, counted: some Sequence<CountedApp> = [CountedApp]()
    ) {
        self.domains = domains as? NameList ?? NameList(domains)
        self.addresses = Array(Set(addresses)).sorted()
        self.allowOnly = allowOnly
        self.rules = rules
        self.apps = BlockedApp.union(apps)
        self.lan = lan
        self.counted = CountedApp.union(counted)
    }

    /// Nothing blocked: enforcers remove every trace of themselves.
    public static let empty = DesiredBlock()

    /// True when nothing is to be blocked on this machine (`lan` aside: the LAN enforcers read it).
    public var isEmpty: Bool { !blocksNetwork && apps.isEmpty }

    /// True when something is to be blocked on the network (the state without its apps is not empty).
    public var blocksNetwork: Bool {
        !domains.isEmpty || !addresses.isEmpty || allowOnly != nil
            || rules.contains { $0.mode == .allowlist || !$0.block.isEmpty || !$0.addresses.isEmpty || !$0.lists.isEmpty }
    }
    /// The rule that blocks `name` (any case, trailing dot allowed), or nil when it may be
    /// looked up: the matching rule of any blocklist session, honouring that session's own
    /// exceptions (`BlockRules.blockingRule(for:)`); `BlockRules.notAllowed` when an allowlist
    /// session leaves the name out (with several allowlists a name must be on all of them).
    /// Names listed in `domains` but in no session's rules (a state built by hand) block
    /// exactly themselves. Imported lists count when `lists` finds them.
    public func verdict(for name: String, lists resolve: (BlocklistReference) -> Blocklist? = { _ in nil }) -> String? {
        var canonical = name.lowercased()
        if canonical.hasSuffix(".") { canonical.removeLast() }
        guard !canonical.isEmpty else { return nil }
        for sessionRules in rules {
            if let found = sessionRules.blockingRule(for: canonical, lists: resolve) { return found.rule }
        }
        return domains.contains(canonical) ? canonical : nil
    }

    private enum CodingKeys: String, CodingKey {
        case domains, addresses, allowOnly, rules, apps, lan, counted
    }

    // State written before `addresses`, `allowOnly` and `apps` existed has only `domains`; it
    // must still load after an upgrade, or a block saved across the upgrade would be lost.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            domains: try container.decode([String].self, forKey: .domains),
            addresses: try container.decodeIfPresent([IPNetwork].self, forKey: .addresses) ?? [],
            allowOnly: try container.decodeIfPresent(AllowList.self, forKey: .allowOnly),
            rules: try container.decodeIfPresent([BlockRules].self, forKey: .rules) ?? [],
            apps: try container.decodeIfPresent([BlockedApp].self, forKey: .apps) ?? [],
            lan: try container.decodeIfPresent(LANBlock.self, forKey: .lan) ?? .empty,
            counted: try container.decodeIfPresent([CountedApp].self, forKey: .counted) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domains, forKey: .domains)
        try container.encode(addresses, forKey: .addresses)
        try container.encodeIfPresent(allowOnly, forKey: .allowOnly)
        if !apps.isEmpty { try container.encode(apps, forKey: .apps) }
        if !rules.isEmpty { try container.encode(rules, forKey: .rules) }
        if lan != .empty { try container.encode(lan, forKey: .lan) }
        if !counted.isEmpty { try container.encode(counted, forKey: .counted) }
    }
}
