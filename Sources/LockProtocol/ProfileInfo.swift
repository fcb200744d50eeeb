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
    /// Path rules (`youtube.com/shorts`): only the browser companion enforces them.
    public var paths: [String] = []
    /// Exceptions to paths and domains, for the browser companion.
    public var allowPaths: [String] = []
    /// Keyword rules (`shorts`): addresses containing the word; only the browser companion enforces them.
    public var keywords: [String] = []

    /// Creates the value field by field.
    public init(
        name: String, displayName: String? = nil, description: String? = nil, icon: String? = nil, color: String? = nil, domains: [String],
        services: [String], categories: [String], allow: [String], addresses: [String], lists: [String], missingLists: [String],
        mode: String, apps: [String], appCategories: [String], running: String, strict: Bool, kind: String, domainCount: Int,
        expandedDomains: [String]? = nil, appCount: Int, expandedApps: [String]? = nil, missingApps: [String]? = nil
    ) {
        self.name = name
        self.displayName = displayName
        self.description = description
        self.icon = icon
        self.color = color
        self.domains = domains
        self.services = services
        self.categories = categories
        self.allow = allow
        self.addresses = addresses
        self.lists = lists
        self.missingLists = missingLists
        self.mode = mode
        self.apps = apps
        self.appCategories = appCategories
        self.running = running
        self.strict = strict
        self.kind = kind
        self.domainCount = domainCount
        self.expandedDomains = expandedDomains
        self.appCount = appCount
        self.expandedApps = expandedApps
        self.missingApps = missingApps
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
