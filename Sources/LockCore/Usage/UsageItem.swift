/// What a minute of usage was spent on: an app of the catalog, a site (a profile's or a
/// service's names), or a LAN device group (time the group's devices were online on the LAN
/// DNS server).
public struct UsageItem: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The kinds of thing usage is measured for.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        case app
        case site
        case group

        public static func < (a: Kind, b: Kind) -> Bool { a.rank < b.rank }

        // Sites before apps: a site is the more specific thing (the browser app runs whatever
        // the site is), so a minute both claim is the site's.
        var rank: Int {
            switch self {
            case .site: 0
            case .app: 1
            case .group: 2
            }
        }
    }

    /// Its kind.
    public var kind: Kind
    /// The app's catalog name, the site's name (`youtube.com`) or the group's name.
    public var name: String
    /// An app's catalog category (`game`, `video`), so usage can be grouped by category.
    public var category: String?

    /// Creates an item.
    public init(_ kind: Kind, _ name: String, category: String? = nil) {
        self.kind = kind
        self.name = name
        self.category = category
    }

    /// `app:firefox`, `site:youtube.com`, `group:kids`.
    public var description: String { "\(kind.rawValue):\(name)" }

    public static func < (a: UsageItem, b: UsageItem) -> Bool { (a.kind, a.name) < (b.kind, b.name) }

    /// Which clock a minute of this item runs on: this machine's (apps and sites), or a
    /// device group's. Each of them spends each minute on at most one thing.
    public var device: String { kind == .group ? "group:\(name)" : "local" }
}

/// How usage is summed in reports: by app, by app category, by site or by device group.
public enum UsageGrouping: String, Sendable, Hashable, Codable, CaseIterable {
    case app
    case category
    case site
    case group

    /// The name an item is summed under, or nil when this grouping does not count it.
    public func key(of item: UsageItem) -> String? {
        switch (self, item.kind) {
        case (.app, .app), (.site, .site), (.group, .group): item.name
        case (.category, .app): item.category ?? "uncategorised"
        default: nil
        }
    }
}

/// The meter that saw an item in use (`lockctl usage --explain` names it).
public enum UsageMeter: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// An app's programs were running while the user's logind session was not idle.
    case appsActive = "apps-active"
    /// An app's programs were running and no logind session could be consulted (headless
    /// machines, scripts): running counts as in use.
    case appsRunning = "apps-running"
    /// The DNS filter answered queries for a site's names.
    case dns
    /// The firewall counted bytes to and from a site's addresses (`SiteActivity`).
    case firewall
    /// The LAN DNS server's query log showed a group's devices asking.
    case lanDNS = "lan-dns"
    /// The browser companion saw the site in the active, visible tab while the user was not idle.
    case browser

    public static func < (a: UsageMeter, b: UsageMeter) -> Bool { a.rawValue < b.rawValue }

    /// What it counts, in a few words (`--explain`).
    public var explanation: String {
        switch self {
        case .appsActive: "the app's programs ran while the session was not idle"
        case .appsRunning: "the app's programs ran (no logind session to ask about idle)"
        case .dns: "the DNS filter answered queries for the site"
        case .firewall:
            "the firewall counted traffic to and from the site's addresses (at least \(SiteActivity.defaultThreshold / 1024) KiB a minute)"
        case .lanDNS: "the LAN DNS server answered the group's devices"
        case .browser: "the site was in the browser's active tab while the user was not idle"
        }
    }
}
