import LockCore

/// `GET /v1/services`: the service catalog that profiles refer to by name.
public struct ServiceList: Sendable, Equatable, Codable {
    /// One catalog service.
    public struct Entry: Sendable, Equatable, Codable {
        /// Identifier used in profiles (`youtube`).
        public var name: String
        /// Human-friendly title (`YouTube`).
        public var displayName: String
        /// Categories it belongs to.
        public var categories: [String]
        /// The domains blocked for it, each with its subdomains.
        public var domains: [String]

        /// Creates an entry.
        public init(name: String, displayName: String, categories: [String], domains: [String]) {
            self.name = name
            self.displayName = displayName
            self.categories = categories
            self.domains = domains
        }
    }

    /// One category.
    public struct Category: Sendable, Equatable, Codable {
        /// Identifier used in profiles (`social`).
        public var name: String
        /// What it holds.
        public var description: String
        /// The services in it.
        public var services: [String]

        /// Creates a category.
        public init(name: String, description: String, services: [String]) {
            self.name = name
            self.description = description
            self.services = services
        }
    }

    /// Services, by name.
    public var services: [Entry]
    /// Categories, by name.
    public var categories: [Category]

    /// Creates a list.
    public init(services: [Entry], categories: [Category]) {
        self.services = services
        self.categories = categories
    }

    /// The catalog as clients see it, sorted by name.
    public init(_ catalog: ServiceCatalog) {
        services = catalog.services.values.sorted { $0.name < $1.name }.map {
            Entry(name: $0.name, displayName: $0.displayName, categories: $0.categories, domains: $0.domains.map(\.value))
        }
        let names = Set(catalog.categories.keys).union(catalog.services.values.flatMap(\.categories))
        categories = names.sorted().map { name in
            Category(
                name: name, description: catalog.categories[name] ?? "",
                services: catalog.services.values.filter { $0.categories.contains(name) }.map(\.name).sorted())
        }
    }
}
