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
}
