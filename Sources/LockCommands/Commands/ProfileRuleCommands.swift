import ArgumentParser
import LockProtocol

/// One kind of rule a custom profile holds (domains, services, catalog categories, exceptions,
/// addresses, lists, apps, app categories), and what its pair of commands, `add-KIND` and `remove-KIND`, say and send.
protocol ProfileRuleKind {
    static var add: CommandConfiguration { get }
    static var remove: CommandConfiguration { get }
    /// The values' name in help (`domains`) and what `add-KIND` and `remove-KIND` take.
    static var valueName: String { get }
    static var addHelp: String { get }
    static var removeHelp: String { get }
    static var completion: CompletionKind? { get }
    static func adding(_ values: [String]) -> UpdateProfileRequest
    static func removing(_ values: [String]) -> UpdateProfileRequest
}

extension ProfileRuleKind {
    static var completion: CompletionKind? { nil }
}

/// `lockctl profiles add-KIND NAME VALUE…`.
struct AddProfileRules<Kind: ProfileRuleKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { Kind.add }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Profile name.", completion: Completions.customProfiles) var name: String
    @Argument(help: ArgumentHelp(Kind.addHelp, valueName: Kind.valueName), completion: Kind.completion) var values: [String]
    func run() async throws { try await updateProfile(global, name, Kind.adding(values)) }
}

/// `lockctl profiles remove-KIND NAME VALUE…`.
struct RemoveProfileRules<Kind: ProfileRuleKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { Kind.remove }
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Profile name.", completion: Completions.customProfiles) var name: String
    @Argument(help: ArgumentHelp(Kind.removeHelp, valueName: Kind.valueName)) var values: [String]
    func run() async throws { try await updateProfile(global, name, Kind.removing(values)) }
}

enum DomainRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-domain", abstract: "Add domains to a custom profile (running blocks pick them up at once).")
    static let remove = CommandConfiguration(commandName: "remove-domain", abstract: "Remove domains from a custom profile.")
    static let valueName = "domains"
    static let addHelp = "Domains or URLs."
    static let removeHelp = "Domains."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addDomains: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeDomains: values) }
}

enum ServiceRules: ProfileRuleKind {
    static let add = CommandConfiguration(commandName: "add-service", abstract: "Add catalog services to a custom profile.")
    static let remove = CommandConfiguration(commandName: "remove-service", abstract: "Remove catalog services from a custom profile.")
    static let valueName = "services"
    static let addHelp = "Services such as youtube (see `lockctl services`)."
    static let removeHelp = "Services."
    static var completion: CompletionKind? { Completions.services }
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addServices: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeServices: values) }
}

enum AllowRules: ProfileRuleKind {
    static let add = CommandConfiguration(commandName: "add-allow", abstract: "Add exceptions that stay reachable.")
    static let remove = CommandConfiguration(commandName: "remove-allow", abstract: "Remove exceptions.")
    static let valueName = "domains"
    static let addHelp = "Domains."
    static let removeHelp = "Domains."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addAllow: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeAllow: values) }
}

enum AddressRules: ProfileRuleKind {
    static let add = CommandConfiguration(commandName: "add-address", abstract: "Add addresses or CIDR networks to a custom profile.")
    static let remove = CommandConfiguration(commandName: "remove-address", abstract: "Remove addresses or networks from a custom profile.")
    static let valueName = "addresses"
    static let addHelp = "Addresses or networks, e.g. 203.0.113.0/24."
    static let removeHelp = "Addresses or networks."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addAddresses: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeAddresses: values) }
}

enum ListRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-list", abstract: "Block imported blocklists with a custom profile (running blocks pick them up at once).")
    static let remove = CommandConfiguration(
        commandName: "remove-list", abstract: "Stop blocking imported blocklists with a custom profile.")
    static let valueName = "lists"
    static let addHelp = "List names (lockctl lists list)."
    static let removeHelp = "List names."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addLists: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeLists: values) }
}

enum AppRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-app", abstract: "Add installed apps to a custom profile (running blocks pick them up at once).",
        discussion:
            "An app is named by its desktop id (steam), flatpak id (org.telegram.desktop), snap name or path; see `lockctl apps list`.")
    static let remove = CommandConfiguration(commandName: "remove-app", abstract: "Remove apps from a custom profile.")
    static let valueName = "apps"
    static let addHelp = "Apps."
    static let removeHelp = "Apps, as the profile names them."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addApps: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeApps: values) }
}

enum PathRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-path", abstract: "Block paths of sites, SITE/PATH (youtube.com/shorts); only the browser companion enforces them."
    )
    static let remove = CommandConfiguration(commandName: "remove-path", abstract: "Remove path rules from a custom profile.")
    static let valueName = "paths"
    static let addHelp = "Paths, SITE/PATH: the site and its subdomains, the path and below it."
    static let removeHelp = "Paths, as the profile lists them."
    static func adding(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.addPaths = values
        return r
    }
    static func removing(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.removePaths = values
        return r
    }
}

enum AllowPathRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-allow-path", abstract: "Add exceptions to the path rules (browser companion only).")
    static let remove = CommandConfiguration(commandName: "remove-allow-path", abstract: "Remove exceptions to the path rules.")
    static let valueName = "paths"
    static let addHelp = "Paths, SITE/PATH."
    static let removeHelp = "Paths."
    static func adding(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.addAllowPaths = values
        return r
    }
    static func removing(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.removeAllowPaths = values
        return r
    }
}

enum KeywordRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-keyword",
        abstract: "Block every web address containing a word (shorts); only the browser companion enforces it.",
        discussion: """
            A keyword is 2-64 ASCII letters, digits, '-', '_' or '.'. It matches an address's host, path and query in any \
            case, as a whole word: shorts blocks youtube.com/shorts/x and youtube.com/results?q=shorts, not /shortstop. Exceptions \
            (add-allow-path) win over keywords.
            """)
    static let remove = CommandConfiguration(commandName: "remove-keyword", abstract: "Remove keyword rules from a custom profile.")
    static let valueName = "keywords"
    static let addHelp = "Words, e.g. shorts."
    static let removeHelp = "Words, as the profile lists them."
    static func adding(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.addKeywords = values
        return r
    }
    static func removing(_ values: [String]) -> UpdateProfileRequest {
        var r = UpdateProfileRequest()
        r.removeKeywords = values
        return r
    }
}

enum CategoryRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-category", abstract: "Add catalog categories (every service in them) to a custom profile.")
    static let remove = CommandConfiguration(commandName: "remove-category", abstract: "Remove catalog categories from a custom profile.")
    static let valueName = "categories"
    static let addHelp = "Categories such as social (see `lockctl services`)."
    static let removeHelp = "Categories."
    static var completion: CompletionKind? { Completions.categories }
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addCategories: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeCategories: values) }
}

enum AppCategoryRules: ProfileRuleKind {
    static let add = CommandConfiguration(
        commandName: "add-app-category", abstract: "Block every installed app of freedesktop categories (Game, Chat, Video and so on).")
    static let remove = CommandConfiguration(commandName: "remove-app-category", abstract: "Remove app categories from a custom profile.")
    static let valueName = "categories"
    static let addHelp = "Categories (any case)."
    static let removeHelp = "Categories."
    static func adding(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(addAppCategories: values) }
    static func removing(_ values: [String]) -> UpdateProfileRequest { UpdateProfileRequest(removeAppCategories: values) }
}
