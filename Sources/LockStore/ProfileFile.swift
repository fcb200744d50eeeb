import LockCore
import LockNames

/// Reads and writes one profile file (`NAME.toml`).
///
/// ```toml
/// name = "focus"
/// description = "Keep me off forums"
/// domains = ["reddit.com", "news.ycombinator.com"]
/// services = ["youtube"]
/// categories = []
/// allow = []
/// addresses = ["203.0.113.0/24"]      # for the firewall enforcer
/// lists = ["ads"]                     # imported blocklists (`lockctl lists import`), for the DNS filter
/// mode = "blocklist"                  # or "allowlist": only these are reachable
/// apps = ["steam", "org.telegram.desktop", "/opt/game/game"]   # desktop ids, flatpak ids, snaps, paths
/// app_categories = ["Game"]           # freedesktop categories (any case in the file)
/// running = "terminate"               # or "freeze": what happens to apps running at the start
/// strict = false
/// paths = ["youtube.com/shorts"]      # browser companion only: SITE/PATH and below it
/// allow_paths = ["reddit.com/r/linux"] # exceptions, browser companion only
/// keywords = ["shorts"]               # browser companion only: addresses containing the word
/// ```
public enum ProfileFile {
    static let fields: Set<String> = [
        "name", "display_name", "description", "icon", "color", "domains", "services",
        "categories", "allow", "addresses", "mode", "apps", "app_categories", "running", "strict",
        "lists", "paths", "allow_paths", "keywords", FrictionSection.name,
    ]

    /// Parses and validates the profile at `path`; the file must be named after the profile.
    public static func load(_ path: String, kind: Profile.Kind, catalog: ServiceCatalog, names: DomainNameParser) throws(FileProblem)
        -> Profile
    {
        let document = try TOMLDocument(contentsOf: path, trust: kind == .custom ? .daemonOnly : .anyone)
        try document.requireOnly(fields)
        let name = try document.requiredString("name")
        let expected = String(path.split(separator: "/").last ?? "").replacingSuffix(".toml")
        do { try Profile.validateName(name) } catch { throw document.problem(error) }
        guard name == expected else {
            throw document.problem("name", value: name, "\"\(name)\" does not match the file name \(expected).toml")
        }
        let profile = Profile(
            name: name, displayName: try document.string("display_name"), description: try document.string("description"),
            icon: try document.string("icon"), color: try document.string("color"),
            domains: try document.domainList("domains", names: names), services: try document.strings("services"),
            categories: try document.strings("categories"), allow: try document.domains("allow", names: names),
            addresses: try document.networks("addresses"), mode: try mode(document), apps: try document.strings("apps"),
            appCategories: try appCategories(document), running: try running(document),
            strict: try document.bool("strict") ?? false, kind: kind, lists: try document.strings("lists"))
        var result = profile
        result.paths = try pathRules("paths", document, names: names)
        result.allowPaths = try pathRules("allow_paths", document, names: names)
        result.keywords = try keywordRules(document)
        do { try result.validate(against: catalog) } catch { throw document.problem(error) }
        let friction = FrictionSection.parse(document)
        // A profile file is all or nothing: a bad friction key makes the file bad, as any other key does.
        if let problem = friction.problems.first { throw problem }
        result.friction = friction.settings
        return result
    }

    private static func keywordRules(_ document: TOMLDocument) throws(FileProblem) -> [KeywordRule] {
        var rules: [KeywordRule] = []
        for text in try document.strings("keywords") {
            do { rules.append(try KeywordRule(parsing: text)) } catch { throw document.problem(error) }
        }
        return KeywordRule.unique(rules)
    }

    private static func pathRules(_ key: String, _ document: TOMLDocument, names: DomainNameParser) throws(FileProblem) -> [PathRule] {
        var rules: [PathRule] = []
        for text in try document.strings(key) {
            do { rules.append(try names.parsePathRule(text, field: key)) } catch { throw document.problem(error) }
        }
        return rules.uniquedPaths()
    }

    private static func mode(_ document: TOMLDocument) throws(FileProblem) -> ProfileMode {
        guard let text = try document.string("mode") else { return .blocklist }
        guard let mode = ProfileMode(rawValue: text) else {
            throw document.problem("mode", value: text, "\"\(text)\" is not a mode (blocklist or allowlist)")
        }
        return mode
    }

    private static func appCategories(_ document: TOMLDocument) throws(FileProblem) -> [AppCategory] {
        var categories: [AppCategory] = []
        for text in try document.strings("app_categories") {
            do { categories.append(try AppCategory(parsing: text)) } catch { throw document.problem(error) }
        }
        return categories
    }

    private static func running(_ document: TOMLDocument) throws(FileProblem) -> BlockedApp.RunningPolicy {
        guard let text = try document.string("running") else { return .terminate }
        guard let policy = BlockedApp.RunningPolicy(rawValue: text) else {
            throw document.problem("running", value: text, "\"\(text)\" is not a policy for running apps (terminate or freeze)")
        }
        return policy
    }

    /// The file text for a profile.
    public static func render(_ profile: Profile) -> String {
        var writer = TOMLWriter(header: [
            "SimplyLock profile. Edited by `lockctl profiles …`; hand edits are picked up by",
            "`lockctl reload`. A domain blocks itself, and its subdomains where the dns enforcer runs.",
        ])
        writer.string("name", profile.name)
        writer.string("display_name", profile.displayName)
        writer.string("description", profile.description)
        writer.string("icon", profile.icon)
        writer.string("color", profile.color)
        writer.strings("domains", profile.domains.map(\.value))
        writer.strings("services", profile.services)
        writer.strings("categories", profile.categories)
        writer.strings("allow", profile.allow.map(\.value))
        writer.strings("addresses", profile.addresses.map(\.description))
        if !profile.lists.isEmpty { writer.strings("lists", profile.lists) }
        if profile.mode != .blocklist { writer.string("mode", profile.mode.rawValue) }
        if !profile.apps.isEmpty { writer.strings("apps", profile.apps) }
        if !profile.appCategories.isEmpty { writer.strings("app_categories", profile.appCategories.map(\.name)) }
        if profile.running != .terminate { writer.string("running", profile.running.rawValue) }
        if !profile.paths.isEmpty { writer.strings("paths", profile.paths.map(\.description)) }
        if !profile.allowPaths.isEmpty { writer.strings("allow_paths", profile.allowPaths.map(\.description)) }
        if !profile.keywords.isEmpty { writer.strings("keywords", profile.keywords.map(\.word)) }
        writer.bool("strict", profile.strict)
        if let friction = profile.friction { FrictionSection.render(friction, into: &writer) }
        return writer.output
    }
}

extension [PathRule] {
    func uniquedPaths() -> [PathRule] {
        var seen = Set<PathRule>()
        return filter { seen.insert($0).inserted }
    }
}

extension String {
    func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
