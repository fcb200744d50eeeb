import Foundation

/// `POST /v1/sessions`: start blocking a profile.
public struct StartRequest: Sendable, Equatable, Codable {
    /// The profile to block.
    public var profile: String
    /// How long, in seconds. Exactly one of `seconds` and `until` is given.
    public var seconds: Double?
    /// Until when (RFC 3339).
    public var until: Date?
    /// Strict or not; nil takes the profile's default.
    public var strict: Bool?
    /// Where to block: `local` (this machine), `lan` (every device the LAN DNS server
    /// answers), device groups from `[lan]`; nil is this machine.
    public var target: [String]?

    /// Creates a request.
    public init(profile: String, seconds: Double? = nil, until: Date? = nil, strict: Bool? = nil, target: [String]? = nil) {
        self.profile = profile
        self.seconds = seconds
        self.until = until
        self.strict = strict
        self.target = target
    }
}

/// `POST /v1/sessions/{ref}/extend`: lengthen a session.
public struct ExtendRequest: Sendable, Equatable, Codable {
    /// Seconds to add; must be positive.
    public var seconds: Double
    /// Creates a request.
    public init(seconds: Double) { self.seconds = seconds }
}

/// `POST /v1/profiles`: create a custom profile.
public struct CreateProfileRequest: Sendable, Equatable, Codable {
    /// Identifier (`focus`).
    public var name: String
    /// Human-friendly title.
    public var displayName: String?
    /// What it is for.
    public var description: String?
    /// Icon name.
    public var icon: String?
    /// Colour.
    public var color: String?
    /// Domains as typed; the daemon normalises them.
    public var domains: [String]
    /// Catalog services.
    public var services: [String]
    /// Catalog categories.
    public var categories: [String]
    /// Exceptions as typed.
    public var allow: [String]
    /// Addresses and CIDR networks as typed.
    public var addresses: [String]?
    /// `blocklist` (default) or `allowlist`.
    public var mode: String?
    /// Imported blocklists, by name.
    public var lists: [String]?
    /// Apps: desktop ids, flatpak ids, snap names or paths; each must be installed.
    public var apps: [String]?
    /// Freedesktop app categories (any case).
    public var appCategories: [String]?
    /// `terminate` (default) or `freeze`.
    public var running: String?
    /// Default strictness.
    public var strict: Bool
    /// Path rules as typed (`youtube.com/shorts`), for the browser companion.
    public var paths: [String]?
    /// Exceptions to paths and domains as typed, for the browser companion.
    public var allowPaths: [String]?
    /// Keyword rules, for the browser companion.
    public var keywords: [String]?

    /// Creates a request.
    public init(
        name: String, displayName: String? = nil, description: String? = nil, icon: String? = nil,
        color: String? = nil, domains: [String] = [], services: [String] = [], categories: [String] = [],
        allow: [String] = [], addresses: [String]? = nil, mode: String? = nil, apps: [String]? = nil,
        appCategories: [String]? = nil, running: String? = nil, strict: Bool = false, lists: [String]? = nil
    ) {
        self.lists = lists
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
        self.mode = mode
        self.apps = apps
        self.appCategories = appCategories
        self.running = running
        self.strict = strict
    }

    private enum CodingKeys: String, CodingKey {
        case name, displayName, description, icon, color, domains, services, categories, allow, addresses, mode, lists, apps
        case appCategories, running, strict, paths, allowPaths, keywords
    }

    /// Absent lists are empty and absent strictness is false, as in a profile file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        icon = try container.decodeIfPresent(String.self, forKey: .icon)
        color = try container.decodeIfPresent(String.self, forKey: .color)
        domains = try container.decodeIfPresent([String].self, forKey: .domains) ?? []
        services = try container.decodeIfPresent([String].self, forKey: .services) ?? []
        categories = try container.decodeIfPresent([String].self, forKey: .categories) ?? []
        allow = try container.decodeIfPresent([String].self, forKey: .allow) ?? []
        addresses = try container.decodeIfPresent([String].self, forKey: .addresses)
        mode = try container.decodeIfPresent(String.self, forKey: .mode)
        lists = try container.decodeIfPresent([String].self, forKey: .lists)
        apps = try container.decodeIfPresent([String].self, forKey: .apps)
        appCategories = try container.decodeIfPresent([String].self, forKey: .appCategories)
        running = try container.decodeIfPresent(String.self, forKey: .running)
        strict = try container.decodeIfPresent(Bool.self, forKey: .strict) ?? false
        paths = try container.decodeIfPresent([String].self, forKey: .paths)
        allowPaths = try container.decodeIfPresent([String].self, forKey: .allowPaths)
        keywords = try container.decodeIfPresent([String].self, forKey: .keywords)
    }
}

/// `PATCH /v1/profiles/{name}`: change a custom profile. Absent fields stay as they are.
public struct UpdateProfileRequest: Sendable, Equatable, Codable {
    /// Domains to add (as typed).
    public var addDomains: [String]?
    /// Domains to remove (as typed).
    public var removeDomains: [String]?
    /// Services to add.
    public var addServices: [String]?
    /// Services to remove.
    public var removeServices: [String]?
    /// Exceptions to add.
    public var addAllow: [String]?
    /// Exceptions to remove.
    public var removeAllow: [String]?
    /// Addresses or networks to add.
    public var addAddresses: [String]?
    /// Addresses or networks to remove.
    public var removeAddresses: [String]?
    /// Imported lists to add.
    public var addLists: [String]?
    /// Imported lists to remove.
    public var removeLists: [String]?
    /// Apps to add; each must be installed.
    public var addApps: [String]?
    /// Apps to remove, as the profile names them.
    public var removeApps: [String]?
    /// App categories to add.
    public var addAppCategories: [String]?
    /// App categories to remove.
    public var removeAppCategories: [String]?
    /// `terminate` or `freeze`.
    public var running: String?
    /// New title.
    public var displayName: String?
    /// New description.
    public var description: String?
    /// New default strictness.
    public var strict: Bool?
    /// Path rules to add (SITE/PATH, for the browser companion).
    public var addPaths: [String]?
    /// Path rules to remove.
    public var removePaths: [String]?
    /// Exceptions to the path rules to add.
    public var addAllowPaths: [String]?
    /// Exceptions to the path rules to remove.
    public var removeAllowPaths: [String]?
    /// Keyword rules to add (for the browser companion).
    public var addKeywords: [String]?
    /// Keyword rules to remove.
    public var removeKeywords: [String]?
    /// New icon name (empty clears it).
    public var icon: String?
    /// New colour, `#RRGGBB` or a name (empty clears it).
    public var color: String?
    /// Catalog categories to add.
    public var addCategories: [String]?
    /// Catalog categories to remove.
    public var removeCategories: [String]?

    /// Creates a request.
    public init(
        addDomains: [String]? = nil, removeDomains: [String]? = nil, addServices: [String]? = nil,
        removeServices: [String]? = nil, addAllow: [String]? = nil, removeAllow: [String]? = nil,
        addAddresses: [String]? = nil, removeAddresses: [String]? = nil, addApps: [String]? = nil,
        removeApps: [String]? = nil, addAppCategories: [String]? = nil, removeAppCategories: [String]? = nil,
        running: String? = nil, addLists: [String]? = nil, removeLists: [String]? = nil, displayName: String? = nil,
        description: String? = nil, strict: Bool? = nil, icon: String? = nil, color: String? = nil,
        addCategories: [String]? = nil, removeCategories: [String]? = nil
    ) {
        self.icon = icon
        self.color = color
        self.addCategories = addCategories
        self.removeCategories = removeCategories
        self.addLists = addLists
        self.removeLists = removeLists
        self.addDomains = addDomains
        self.removeDomains = removeDomains
        self.addServices = addServices
        self.removeServices = removeServices
        self.addAllow = addAllow
        self.removeAllow = removeAllow
        self.addAddresses = addAddresses
        self.removeAddresses = removeAddresses
        self.addApps = addApps
        self.removeApps = removeApps
        self.addAppCategories = addAppCategories
        self.removeAppCategories = removeAppCategories
        self.running = running
        self.displayName = displayName
        self.description = description
        self.strict = strict
    }
}
