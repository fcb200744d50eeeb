/// A well-known site or app and the domains it is served from.
public struct Service: Sendable, Equatable, Codable {
    /// Identifier used in profiles (`youtube`).
    public var name: String
    /// Human-friendly title (`YouTube`).
    public var displayName: String
    /// Categories it belongs to (`video`).
    public var categories: [String]
    /// The domains that make the service unusable when blocked, CDNs included.
    public var domains: [DomainName]

    /// Creates a service entry.
    public init(name: String, displayName: String, categories: [String], domains: [DomainName]) {
        self.name = name
        self.displayName = displayName
        self.categories = categories
        self.domains = domains
    }
}

/// The shipped catalog of services and categories that profiles refer to by name.
public struct ServiceCatalog: Sendable, Equatable {
    /// Services by name.
    public var services: [String: Service]
    /// Category descriptions by category name.
    public var categories: [String: String]

    /// Creates a catalog.
    public init(services: [Service] = [], categories: [String: String] = [:]) {
        self.services = Dictionary(services.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.categories = categories
    }

    /// The rules a profile stands for: its own domains plus those of its services and of every
    /// service in its categories, with its exceptions. Unknown names are skipped here; they
    /// are refused earlier by `Profile.validate(against:)`.
    ///
    /// `lists` gives the version in force of each imported list the profile names; lists it
    /// does not know (not imported, or removed) are left out.
    public func rules(for profile: Profile, lists: (String) -> BlocklistReference? = { _ in nil }) -> BlockRules {
        var names = profile.domains.map(\.value)
        var serviceNames = profile.services
        for category in profile.categories {
            serviceNames += services.values.filter { $0.categories.contains(category) }.map(\.name).sorted()
        }
        for name in serviceNames { names += services[name]?.domains.map(\.value) ?? [] }
        var rules = BlockRules(
            block: DomainSet(names), allow: DomainSet(profile.allow.map(\.value)), addresses: profile.addresses,
            mode: profile.mode, lists: profile.lists.compactMap(lists))
        rules.paths = Array(Set(profile.paths)).sorted()
        rules.allowPaths = Array(Set(profile.allowPaths)).sorted()
        rules.keywords = Array(Set(profile.keywords)).sorted()
        return rules
    }
}
