import ArgumentParser
import LockProtocol

/// `lockctl profiles …`: list, show, create, edit and delete profiles.
struct ProfilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List, show, create, change and delete blocking profiles.",
        subcommands: [
            List.self, Show.self, Create.self, AddProfileRules<DomainRules>.self, RemoveProfileRules<DomainRules>.self,
            AddProfileRules<ServiceRules>.self, RemoveProfileRules<ServiceRules>.self, AddProfileRules<CategoryRules>.self,
            RemoveProfileRules<CategoryRules>.self, AddProfileRules<AllowRules>.self,
            RemoveProfileRules<AllowRules>.self, AddProfileRules<AddressRules>.self, RemoveProfileRules<AddressRules>.self,
            AddProfileRules<AppRules>.self, RemoveProfileRules<AppRules>.self, AddProfileRules<AppCategoryRules>.self,
            RemoveProfileRules<AppCategoryRules>.self, AddProfileRules<ListRules>.self, RemoveProfileRules<ListRules>.self,
            AddProfileRules<PathRules>.self, RemoveProfileRules<PathRules>.self, AddProfileRules<AllowPathRules>.self,
            RemoveProfileRules<AllowPathRules>.self, AddProfileRules<KeywordRules>.self, RemoveProfileRules<KeywordRules>.self,
            Edit.self,
            Delete.self,
        ],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List system and custom profiles.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.call { try await $0.profiles() }
            if try global.printJSON(list) { return }
            let rows =
                [["NAME", "KIND", "DOMAINS", "APPS", "STRICT", "DESCRIPTION"]]
                + list.profiles.map {
                    [
                        $0.name, $0.kind, "\($0.domainCount)" + ($0.mode == "allowlist" ? " allowed" : ""), "\($0.appCount)",
                        $0.strict ? "yes" : "no", TextFormat.shown($0.description ?? ""),
                    ]
                }
            print(TextFormat.table(rows, header: true))
            for problem in list.problems { print("problem: \(TextFormat.shown(problem))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one profile and every domain and app it blocks.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Profile name.", completion: Completions.profiles) var name: String

        func run() async throws {
            let profile = try await global.call { try await $0.profile(name) }
            if try global.printJSON(profile) { return }
            // What "blocks a domain" means depends on the enforcers in force here.
            let enforcers = (try? await global.client.status())?.enforcers.map(\.name)
            print(Show.render(profile, enforcers: enforcers))
        }

        /// What blocking a domain does with `enforcers` in force (nil: not known): only the dns
        /// enforcer reaches the names under it; the hosts file and the firewall take exact names.
        static func coverage(_ enforcers: [String]?) -> String {
            guard let enforcers else { return "" }
            var parts: [String] = []
            if enforcers.contains("dns") { parts.append("with every name under them (dns)") }
            if enforcers.contains("hosts") { parts.append("the exact names and their www. twins (hosts)") }
            if enforcers.contains("nftables") { parts.append("the addresses of the exact names (nftables)") }
            if !enforcers.contains("dns") { parts.append("subdomains only with the dns enforcer") }
            return parts.isEmpty ? "" : ": " + parts.joined(separator: "; ")
        }

        static func render(_ profile: ProfileInfo, enforcers: [String]? = nil) -> String {
            var rows: [[String]] = [
                ["Name:", profile.name + (profile.displayName.map { " (\(TextFormat.shown($0)))" } ?? "")],
                ["Kind:", profile.kind], ["Strict:", profile.strict ? "yes" : "no"],
            ]
            if let description = profile.description { rows.append(["Description:", TextFormat.shown(description)]) }
            if !profile.domains.isEmpty { rows.append(["Domains:", profile.domains.joined(separator: " ")]) }
            if !profile.services.isEmpty { rows.append(["Services:", profile.services.joined(separator: " ")]) }
            if !profile.categories.isEmpty { rows.append(["Categories:", profile.categories.joined(separator: " ")]) }
            if !profile.allow.isEmpty { rows.append(["Exceptions:", profile.allow.joined(separator: " ")]) }
            if !profile.addresses.isEmpty { rows.append(["Addresses:", profile.addresses.joined(separator: " ")]) }
            if !profile.lists.isEmpty {
                let missing = Set(profile.missingLists)
                rows.append(["Lists:", profile.lists.map { missing.contains($0) ? "\($0) (not imported)" : $0 }.joined(separator: " ")])
            }
            if profile.mode == "allowlist" {
                rows.append(["Mode:", "allowlist: only these domains and addresses are reachable (firewall enforcer)"])
                rows.append(["Allows:", "\(TextFormat.count(profile.domainCount, "domain")) and their subdomains"])
            } else {
                rows.append(["Blocks:", TextFormat.count(profile.domainCount, "domain") + coverage(enforcers)])
            }
            if !profile.paths.isEmpty { rows.append(["Paths:", profile.paths.joined(separator: " ") + " (browser companion only)"]) }
            if !profile.allowPaths.isEmpty {
                rows.append(["Allowed paths:", profile.allowPaths.joined(separator: " ") + " (browser companion only)"])
            }
            if !profile.keywords.isEmpty {
                rows.append(["Keywords:", profile.keywords.joined(separator: " ") + " (browser companion only)"])
            }
            if !profile.apps.isEmpty { rows.append(["Apps:", profile.apps.joined(separator: " ")]) }
            if !profile.appCategories.isEmpty { rows.append(["App categories:", profile.appCategories.joined(separator: " ")]) }
            if !profile.apps.isEmpty || !profile.appCategories.isEmpty {
                rows.append([
                    "Running apps:",
                    profile.running == "freeze"
                        ? "frozen while blocked (terminated without a scope of their own)"
                        : "terminated when a block starts",
                ])
                let found = profile.expandedApps ?? []
                rows.append(["Blocks apps:", found.isEmpty ? "none installed" : found.joined(separator: " ")])
                if let missing = profile.missingApps, !missing.isEmpty {
                    rows.append(["Not installed:", missing.joined(separator: " ")])
                }
            }
            var text = TextFormat.table(rows)
            if let expanded = profile.expandedDomains, !expanded.isEmpty {
                text += "\n" + expanded.map { "  \($0)" }.joined(separator: "\n")
            }
            return text
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a custom profile.",
            discussion: """
                Example:
                  lockctl profiles create focus --domain reddit.com \\
                      --domain news.ycombinator.com --service youtube
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Profile name: a-z, 0-9 and '-'.") var name: String
        @Option(
            name: .customLong("domain"),
            help: "A domain to block (URLs are accepted); its subdomains too where the dns enforcer runs. Repeatable.")
        var domains: [String] = []
        @Option(
            name: .customLong("service"), help: "A catalog service such as youtube (see `lockctl services`). Repeatable.",
            completion: Completions.services)
        var services: [String] = []
        @Option(name: .customLong("category"), help: "A catalog category such as social. Repeatable.", completion: Completions.categories)
        var categories: [String] = []
        @Option(name: .customLong("allow"), help: "An exception that stays reachable. Repeatable.") var allow: [String] = []
        @Option(name: .customLong("address"), help: "An address or CIDR network to block at the firewall (203.0.113.0/24). Repeatable.")
        var addresses: [String] = []
        @Option(name: .customLong("list"), help: "An imported blocklist (lockctl lists import). Repeatable.") var lists: [String] = []
        @Option(help: "blocklist (default): block what is listed; allowlist: allow only what is listed (firewall enforcer).")
        var mode: String?
        @Option(
            name: .customLong("app"),
            help: "An installed app to block: desktop id, flatpak id, snap name or path (see `lockctl apps list`). Repeatable.")
        var apps: [String] = []
        @Option(name: .customLong("app-category"), help: "A freedesktop app category such as Game or Chat. Repeatable.")
        var appCategories: [String] = []
        @Option(help: "What happens to the profile's apps running when a block starts: terminate (default) or freeze.")
        var running: String?
        @Option(help: "One line saying what the profile is for.") var description: String?
        @Option(help: "Human-friendly title.") var displayName: String?
        @Option(help: "Icon name, for graphical front ends.") var icon: String?
        @Option(help: "Colour (#RRGGBB or a name), for graphical front ends.") var color: String?
        @Flag(help: "Make sessions of this profile strict by default.") var strict = false
        @Option(name: .customLong("path"), help: "A path to block, SITE/PATH (youtube.com/shorts); browser companion only. Repeatable.")
        var paths: [String] = []
        @Option(name: .customLong("allow-path"), help: "A path that stays reachable (browser companion only). Repeatable.")
        var allowPaths: [String] = []
        @Option(name: .customLong("keyword"), help: "A word whose addresses are blocked (shorts); browser companion only. Repeatable.")
        var keywords: [String] = []

        func run() async throws {
            var request = CreateProfileRequest(
                name: name, displayName: displayName, description: description, icon: icon,
                color: color, domains: domains, services: services, categories: categories,
                allow: allow, addresses: addresses, mode: mode,
                apps: apps.isEmpty ? nil : apps,
                appCategories: appCategories.isEmpty ? nil : appCategories, running: running,
                strict: strict, lists: lists.isEmpty ? nil : lists)
            request.paths = paths.isEmpty ? nil : paths
            request.allowPaths = allowPaths.isEmpty ? nil : allowPaths
            request.keywords = keywords.isEmpty ? nil : keywords
            let profile = try await global.call(fields: ProfilesCommand.fields) { try await $0.createProfile(request) }
            if try global.printJSON(profile) { return }
            print("profile \(profile.name) created: \(summary(profile))")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a custom profile's description, title, icon, colour, strictness or what happens to running apps.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Profile name.", completion: Completions.customProfiles) var name: String
        @Option(help: "New description (empty to clear).") var description: String?
        @Option(help: "New title (empty to clear).") var displayName: String?
        @Flag(
            inversion: .prefixedNo,
            help:
                "--strict: blocks of this profile are strict unless started with --no-strict; --no-strict: they are not strict unless started with --strict."
        )
        var strict: Bool?
        @Option(help: "What happens to the profile's apps running when a block starts: terminate or freeze.") var running: String?
        @Option(help: "New icon name (empty to clear).") var icon: String?
        @Option(help: "New colour: #RRGGBB or a name (empty to clear).") var color: String?

        func validate() throws {
            if description == nil, displayName == nil, strict == nil, running == nil, icon == nil, color == nil {
                throw ValidationError(
                    "nothing to change: give --description, --display-name, --icon, --color, --strict/--no-strict or --running")
            }
        }

        func run() async throws {
            try await updateProfile(
                global, name,
                UpdateProfileRequest(
                    running: running, displayName: displayName, description: description,
                    strict: strict, icon: icon, color: color))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a custom profile (system profiles cannot be deleted).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Profile name.", completion: Completions.customProfiles) var name: String

        func run() async throws {
            try await global.call { try await $0.deleteProfile(name) }
            if try global.printJSON(["deleted": name]) { return }
            print("profile \(name) deleted")
        }
    }
}

extension ProfilesCommand {
    /// How profile commands name the request fields.
    static let fields = FieldNames([
        "domains": "--domain", "services": "--service", "categories": "--category", "allow": "--allow", "addresses": "--address",
        "apps": "--app", "app_categories": "--app-category", "appCategories": "--app-category", "running": "--running", "lists": "--list",
        "addLists": "<lists>", "removeLists": "<lists>", "name": "<name>", "add-domain": "<domains>", "remove-domain": "<domains>",
        "add-address": "<addresses>",
        "remove-address": "<addresses>", "addDomains": "<domains>", "removeDomains": "<domains>", "addServices": "<services>",
        "removeServices": "<services>", "addAllow": "<domains>", "removeAllow": "<domains>", "addApps": "<apps>",
        "removeApps": "<apps>", "addAppCategories": "<categories>", "removeAppCategories": "<categories>", "paths": "--path",
        "allow_paths": "--allow-path", "add-path": "<paths>", "remove-path": "<paths>", "add-allow-path": "<paths>",
        "remove-allow-path": "<paths>", "keywords": "--keyword", "add-keyword": "<keywords>", "remove-keyword": "<keywords>",
        "icon": "--icon", "color": "--color", "addCategories": "<categories>", "removeCategories": "<categories>",
        "remove-category": "<categories>",
    ])
}

func updateProfile(_ global: GlobalOptions, _ name: String, _ request: UpdateProfileRequest) async throws {
    // A strict block keeps every rule it started with (it can only gain rules), so what is
    // removed from the profile stays blocked by it until it ends: say so.
    let weakens =
        !(request.removeDomains ?? []).isEmpty || !(request.removeServices ?? []).isEmpty
        || !(request.removeAddresses ?? []).isEmpty || !(request.addAllow ?? []).isEmpty
        || !(request.removeApps ?? []).isEmpty || !(request.removeAppCategories ?? []).isEmpty
        || !(request.removePaths ?? []).isEmpty || !(request.addAllowPaths ?? []).isEmpty
        || !(request.removeCategories ?? []).isEmpty
    let strictBlocks = weakens ? ((try? await global.client.status().sessions) ?? []).filter { $0.profile == name && $0.strict } : []
    let profile = try await global.call(fields: ProfilesCommand.fields) { try await $0.updateProfile(name, request) }
    if try global.printJSON(profile) { return }
    print("profile \(profile.name) updated: \(summary(profile))")
    for session in strictBlocks {
        print(
            "the strict block of \(session.profile) (session \(session.id)) keeps blocking what was removed until it ends at "
                + "\(TextFormat.clock(session.endsAt)); the change applies to later blocks")
    }
}

/// `12 domains, 3 apps (not installed: …)`.
private func summary(_ profile: ProfileInfo) -> String {
    var text = TextFormat.count(profile.domainCount, "domain")
    if !profile.apps.isEmpty || !profile.appCategories.isEmpty {
        text += ", " + TextFormat.count(profile.appCount, "app")
        if let missing = profile.missingApps, !missing.isEmpty { text += " (not installed: \(missing.joined(separator: ", ")))" }
    }
    if !profile.lists.isEmpty { text += ", lists \(profile.lists.joined(separator: " "))" }
    return text
}
