import LockCore

/// A change to a custom profile, with every value already parsed. Absent fields stay as they are.
public struct ProfileEdit: Sendable, Equatable {
    /// Domains to add.
    public var addDomains: [DomainName] = []
    /// Domains to remove; each must be in the profile.
    public var removeDomains: [DomainName] = []
    /// Catalog services to add.
    public var addServices: [String] = []
    /// Catalog services to remove; each must be in the profile.
    public var removeServices: [String] = []
    /// Exceptions to add.
    public var addAllow: [DomainName] = []
    /// Exceptions to remove.
    public var removeAllow: [DomainName] = []
    /// Addresses or networks to add.
    public var addAddresses: [IPNetwork] = []
    /// Addresses or networks to remove; each must be in the profile.
    public var removeAddresses: [IPNetwork] = []
    /// Imported lists to add (each must have been imported).
    public var addLists: [String] = []
    /// Imported lists to remove; each must be in the profile.
    public var removeLists: [String] = []
    /// Apps to add, as named; each must be installed.
    public var addApps: [String] = []
    /// Apps to remove, as the profile names them; each must be in the profile.
    public var removeApps: [String] = []
    /// App categories to add.
    public var addAppCategories: [AppCategory] = []
    /// App categories to remove; each must be in the profile.
    public var removeAppCategories: [AppCategory] = []
    /// What happens to running apps at a block's start.
    public var running: BlockedApp.RunningPolicy?
    /// A new title; empty clears it.
    public var displayName: String?
    /// A new description; empty clears it.
    public var description: String?
    /// A new default strictness.
    public var strict: Bool?
    /// Path rules to add.
    public var addPaths: [PathRule] = []
    /// Path rules to remove; each must be in the profile.
    public var removePaths: [PathRule] = []
    /// Exceptions to the path rules to add.
    public var addAllowPaths: [PathRule] = []
    /// Exceptions to the path rules to remove.
    public var removeAllowPaths: [PathRule] = []
    /// Keyword rules to add.
    public var addKeywords: [KeywordRule] = []
    /// Keyword rules to remove; each must be in the profile.
    public var removeKeywords: [KeywordRule] = []
    /// A new icon name; empty clears it.
    public var icon: String?
    /// A new colour; empty clears it.
    public var color: String?
    /// Catalog categories to add.
    public var addCategories: [String] = []
    /// Catalog categories to remove; each must be in the profile.
    public var removeCategories: [String] = []

    /// An edit that changes nothing.
    public init() {}

    /// `profile` with the edit made, or why it cannot be.
    func applied(to profile: Profile) throws(ProfileError) -> Profile {
        if let missing = removeDomains.first(where: { !profile.domains.contains($0) }) {
            throw .notInProfile(field: "remove-domain", value: missing.value, profile: profile.name)
        }
        if let missing = removeAddresses.first(where: { !profile.addresses.contains($0) }) {
            throw .notInProfile(field: "remove-address", value: missing.description, profile: profile.name)
        }
        if let missing = removeServices.first(where: { !profile.services.contains($0) }) {
            throw .notInProfile(field: "remove-service", value: missing, profile: profile.name)
        }
        if let missing = removeLists.first(where: { !profile.lists.contains($0) }) {
            throw .notInProfile(field: "remove-list", value: missing, profile: profile.name)
        }
        if let missing = removeApps.first(where: { !profile.apps.contains($0) }) {
            throw .notInProfile(field: "remove-app", value: missing, profile: profile.name)
        }
        if let missing = removeCategories.first(where: { !profile.categories.contains($0) }) {
            throw .notInProfile(field: "remove-category", value: missing, profile: profile.name)
        }
        if let missing = removeAppCategories.first(where: { !profile.appCategories.contains($0) }) {
            throw .notInProfile(field: "remove-app-category", value: missing.name, profile: profile.name)
        }
        if let missing = removePaths.first(where: { !profile.paths.contains($0) }) {
            throw .notInProfile(field: "remove-path", value: missing.description, profile: profile.name)
        }
        if let missing = removeKeywords.first(where: { !profile.keywords.contains($0) }) {
            throw .notInProfile(field: "remove-keyword", value: missing.word, profile: profile.name)
        }
        var edited = profile
        edited.keywords = KeywordRule.unique(profile.keywords.filter { !removeKeywords.contains($0) } + addKeywords)
        edited.paths = (profile.paths.filter { !removePaths.contains($0) } + addPaths).uniquedPaths()
        edited.allowPaths = (profile.allowPaths.filter { !removeAllowPaths.contains($0) } + addAllowPaths).uniquedPaths()
        edited.lists = profile.lists.filter { !removeLists.contains($0) } + addLists
        edited.domains = DomainList(profile.domains.filter { !removeDomains.contains($0) } + addDomains)
        edited.services = profile.services.filter { !removeServices.contains($0) } + addServices
        edited.allow = profile.allow.filter { !removeAllow.contains($0) } + addAllow
        edited.addresses = profile.addresses.filter { !removeAddresses.contains($0) } + addAddresses
        edited.apps = profile.apps.filter { !removeApps.contains($0) } + addApps
        edited.appCategories = profile.appCategories.filter { !removeAppCategories.contains($0) } + addAppCategories
        let categories = profile.categories.filter { !removeCategories.contains($0) }
        edited.categories = categories + addCategories.filter { !categories.contains($0) }
        if let running { edited.running = running }
        if let icon { edited.icon = icon.isEmpty ? nil : icon }
        if let color { edited.color = color.isEmpty ? nil : color }
        if let displayName { edited.displayName = displayName.isEmpty ? nil : displayName }
        if let description { edited.description = description.isEmpty ? nil : description }
        if let strict { edited.strict = strict }
        return edited
    }
}

extension [PathRule] {
    fileprivate func uniquedPaths() -> [PathRule] {
        var seen = Set<PathRule>()
        return filter { seen.insert($0).inserted }
    }
}
