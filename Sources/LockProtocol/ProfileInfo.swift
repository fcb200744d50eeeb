import LockCore

/// A profile as clients see it.
public struct ProfileInfo: Sendable, Equatable, Codable {
    /// Identifier.
    public var name: String
    /// Human-friendly title.
    public var displayName: String?
    /// What it is for.
    public var description: String?
    /// Icon name.
    public var icon: String?
    /// Colour.
    public var color: String?
    /// Its own domains.
    public var domains: [String]
    /// Catalog services it includes.
    public var services: [String]
    /// Catalog categories it includes.
    public var categories: [String]
    /// Exceptions.
    public var allow: [String]
    /// Addresses and networks (blocked, or allowed in allowlist mode).
    public var addresses: [String]
    /// Imported blocklists it blocks too (`lockctl lists`).
    public var lists: [String]
    /// Of those, the ones not imported (they block nothing until they are).
    public var missingLists: [String]
    /// `blocklist` or `allowlist`.
    public var mode: String
    /// Apps as the profile names them (desktop ids, flatpak ids, snap names, paths).
    public var apps: [String]
    /// Freedesktop categories whose apps it blocks.
    public var appCategories: [String]
    /// `terminate` or `freeze`: what a block does to its apps running when it starts.
    public var running: String
    /// Default strictness of its sessions.
    public var strict: Bool
    /// `system` or `custom`.
    public var kind: String
    /// Domain rules after expanding services and categories.
    public var domainCount: Int
    /// Every domain rule after expansion, sorted (only in single-profile answers).
    public var expandedDomains: [String]?
    /// Installed apps it blocks, its apps and categories resolved through the app catalog now.
    public var appCount: Int
    /// The ids of those apps, sorted (only in single-profile answers).
    public var expandedApps: [String]?
    /// Apps it names that are not installed here (only in single-profile answers).
    public var missingApps: [String]?

    /// Creates the wire form of a profile.
    public init(_ profile: Profile, rules: BlockRules, includeExpansion: Bool) {
        name = profile.name
        displayName = profile.displayName
        description = profile.description
        icon = profile.icon
        color = profile.color
        domains = profile.domains.map(\.value)
        services = profile.services
        categories = profile.categories
        allow = profile.allow.map(\.value)
        addresses = profile.addresses.map(\.description)
        lists = profile.lists
        let imported = Set(rules.lists.map(\.name))
        missingLists = profile.lists.filter { !imported.contains($0) }
        mode = profile.mode.rawValue
        apps = profile.apps
        appCategories = profile.appCategories.map(\.name)
        running = profile.running.rawValue
        strict = profile.strict
        kind = profile.kind.rawValue
        domainCount = rules.block.count
        expandedDomains = includeExpansion ? rules.block.sorted : nil
        appCount = rules.apps.count
        expandedApps = includeExpansion ? rules.apps.map(\.id) : nil
        missingApps = includeExpansion ? rules.missingApps : nil
    }
}

/// `GET /v1/profiles`.
public struct ProfileList: Sendable, Equatable, Codable {
    /// All profiles, system ones first, then by name.
    public var profiles: [ProfileInfo]
    /// Files that could not be loaded (`file:line: field: reason`); the rest still work.
    public var problems: [String]

    /// Creates a list.
    public init(profiles: [ProfileInfo], problems: [String]) {
        self.profiles = profiles
        self.problems = problems
    }
}
