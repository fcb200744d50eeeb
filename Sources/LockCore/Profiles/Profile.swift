/// A named set of sites, apps and app categories to block, with a strict-mode default.
///
/// System profiles ship with the package and cannot be deleted or edited; custom profiles are
/// created by `lockctl` (or by hand) as files.
public struct Profile: Sendable, Equatable, Codable {
    /// Where a profile comes from.
    public enum Kind: String, Sendable, Codable { case system, custom }

    /// Identifier used on the command line and as the file name (`deep-work`).
    public var name: String
    /// Human-friendly title (`Deep Work`).
    public var displayName: String?
    /// One line saying what it is for.
    public var description: String?
    /// Icon name, for graphical front ends.
    public var icon: String?
    /// Colour (`#RRGGBB` or a name), for graphical front ends.
    public var color: String?
    /// Domains blocked with all their subdomains, kept compact: profiles can list 100 000.
    public var domains: DomainList
    /// Names of catalog services (`youtube`) whose domains are blocked.
    public var services: [String]
    /// Catalog categories (`social`) whose services are blocked.
    public var categories: [String]
    /// Exceptions: names that stay reachable even though a rule above covers them (or a
    /// name of one of its lists).
    public var allow: [DomainName]
    /// Imported blocklists (`lockctl lists import`) blocked with the profile, by name.
    public var lists: [String]
    /// Addresses and networks blocked directly (or, in allowlist mode, allowed), for the
    /// firewall enforcer.
    public var addresses: [IPNetwork]
    /// Whether the profile lists what to block or the only things to allow (sites only: apps
    /// are blocked in either mode).
    public var mode: ProfileMode
    /// Applications to block, as named (desktop id, flatpak id, snap name or absolute path);
    /// resolved through the app catalog when a session starts.
    public var apps: [String]
    /// Freedesktop categories whose installed apps are blocked (`Game`, `Chat`).
    public var appCategories: [AppCategory]
    /// What a block does to instances of its apps already running when it starts.
    public var running: BlockedApp.RunningPolicy
    /// Default strictness of sessions of this profile.
    public var strict: Bool
    /// System (shipped) or custom.
    public var kind: Kind
    /// The profile's `[friction]` section: how its strict blocks can be ended early; nil
    /// takes the configuration's.
    public var friction: FrictionSettings? = nil
    /// Paths of sites to block (`youtube.com/shorts`): only the browser companion sees paths.
    public var paths: [PathRule] = []
    /// Exceptions to `paths` and to domains, for the browser companion (`youtube.com/watch`).
    public var allowPaths: [PathRule] = []
    /// Words that block every address containing them (`shorts`): only the browser companion sees addresses.
    public var keywords: [KeywordRule] = []

    /// Creates a profile; lists are de-duplicated keeping their first order.
    public init(
        name: String, displayName: String? = nil, description: String? = nil, icon: String? = nil,
        color: String? = nil, domains: some Sequence<DomainName> = [DomainName](), services: [String] = [],
        categories: [String] = [], allow: [DomainName] = [], addresses: [IPNetwork] = [],
        mode: ProfileMode = .blocklist, apps: [String] = [], appCategories: [AppCategory] = [],
        running: BlockedApp.RunningPolicy = .terminate, strict: Bool = false, kind: Kind = .custom, lists: [String] = []
    ) {
        self.name = name
        self.displayName = displayName
        self.description = description
        self.icon = icon
        self.color = color
        self.domains = DomainList(domains)
        self.services = services.uniqued()
        self.categories = categories.uniqued()
        self.allow = allow.uniqued()
        self.lists = lists.uniqued()
        self.addresses = addresses.uniqued()
        self.mode = mode
        self.apps = apps.uniqued()
        self.appCategories = appCategories.uniqued()
        self.running = running
        self.strict = strict
        self.kind = kind
    }

    /// Checks that a profile name can be used on the command line and as a file name:
    /// 1–40 characters, lower-case letters, digits and `-`, starting with a letter or digit.
    public static func validateName(_ name: String) throws(FieldError) {
        try NameRule.validate(name, kind: "profile")
    }

    /// Checks everything a file or request could get wrong that the types do not already
    /// prevent, against the service catalog.
    public func validate(against catalog: ServiceCatalog) throws(FieldError) {
        try Profile.validateName(name)
        try DisplayText.validate(displayName, field: "display_name")
        try DisplayText.validate(description, field: "description")
        try DisplayText.validate(icon, field: "icon")
        for service in services where catalog.services[service] == nil {
            throw FieldError(
                field: "services", value: service,
                reason: "unknown service \"\(service)\" (known: \(catalog.services.keys.sorted().joined(separator: ", ")))")
        }
        for category in categories where catalog.categories[category] == nil {
            throw FieldError(
                field: "categories", value: category,
                reason: "unknown category \"\(category)\" (known: \(catalog.categories.keys.sorted().joined(separator: ", ")))")
        }
        for list in lists {
            do throws(FieldError) { try NameRule.validate(list, kind: "list") } catch {
                throw FieldError(field: "lists", value: list, reason: error.reason)
            }
        }
        if mode == .allowlist, let list = lists.first {
            throw FieldError(
                field: "lists", value: list,
                reason: "an allowlist profile already blocks everything it does not list; blocklists do not apply")
        }
        for app in apps { try AppName.validate(app) }
        if mode == .allowlist, !allow.isEmpty {
            throw FieldError(
                field: "allow", value: allow[0].value,
                reason: "an allowlist profile lists what is allowed in domains; exceptions do not apply")
        }
        // A scan of the compact list for each exception, not a set of 100 000 names: profiles
        // list few exceptions.
        if let both = allow.first(where: domains.contains) {
            throw FieldError(
                field: "allow", value: both.value,
                reason: "\(both) is both blocked and allowed; keep it in one list")
        }
        if let both = allowPaths.first(where: paths.contains) {
            throw FieldError(
                field: "allow_paths", value: both.description, reason: "\(both) is both blocked and allowed; keep it in one list")
        }
        if let color, !color.isEmpty,
            !(color.hasPrefix("#")
                ? color.count == 7 && color.dropFirst().allSatisfy(\.isHexDigit)
                : color.allSatisfy(\.isLetter))
        {
            throw FieldError(field: "color", value: color, reason: "\"\(color)\" is not a colour (#RRGGBB or a name)")
        }
    }
}

extension Array where Element: Hashable {
    /// The elements in their first order without repeats.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
