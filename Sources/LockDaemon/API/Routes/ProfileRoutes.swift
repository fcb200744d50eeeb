import LockCore
import LockProtocol

/// Listing, creating, changing and deleting profiles.
struct ProfileRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let profiles = core.profiles
        let coordinator = core.coordinator
        let names = core.names
        router.add(Endpoints.profiles) { _ in
            ProfileList(
                profiles: await profiles.all().map { ProfileInfo($0, includeExpansion: false) },
                problems: await profiles.problems.map(\.description))
        }
        router.add(Endpoints.profile) { context throws(APIError) in
            let name = context.parameter("name")
            guard let expansion = await profiles.expansion(of: name) else { throw context.errors.map(ProfileError.notFound(name)) }
            return ProfileInfo(expansion, includeExpansion: true)
        }
        router.add(Endpoints.createProfile) { context throws(APIError) in
            let request = context.body
            do throws(FieldError) { try Profile.validateName(request.name) } catch { throw APIError(.invalidArgument, error.description) }
            var mode = ProfileMode.blocklist
            if let text = request.mode {
                guard let parsed = ProfileMode(rawValue: text) else {
                    throw APIError(.invalidArgument, "mode: \"\(text)\" is not a mode (blocklist or allowlist)")
                }
                mode = parsed
            }
            var profile = Profile(
                name: request.name, displayName: request.displayName, description: request.description,
                icon: request.icon, color: request.color,
                domains: try InputParsing.domains(request.domains, field: "domains", parser: names),
                services: request.services, categories: request.categories,
                allow: try InputParsing.domains(request.allow, field: "allow", parser: names),
                addresses: try InputParsing.networks(request.addresses ?? [], field: "addresses"), mode: mode,
                apps: try InputParsing.apps(request.apps ?? [], field: "apps"),
                appCategories: try InputParsing.appCategories(request.appCategories ?? [], field: "app_categories"),
                running: try InputParsing.running(request.running) ?? .terminate, strict: request.strict,
                kind: .custom, lists: request.lists ?? [])
            profile.paths = try InputParsing.pathRules(request.paths ?? [], field: "paths", parser: names)
            profile.allowPaths = try InputParsing.pathRules(request.allowPaths ?? [], field: "allow_paths", parser: names)
            profile.keywords = KeywordRule.unique(try InputParsing.keywords(request.keywords ?? [], field: "keywords"))
            let created = try await context.call { () async throws(ProfileError) in try await coordinator.createProfile(profile) }
            return ProfileInfo(await profiles.expansion(created), includeExpansion: true)
        }
        router.add(Endpoints.updateProfile) { context throws(APIError) in
            let request = context.body
            var edit = ProfileEdit()
            edit.addDomains = try InputParsing.domains(request.addDomains ?? [], field: "add-domain", parser: names)
            edit.removeDomains = try InputParsing.domains(request.removeDomains ?? [], field: "remove-domain", parser: names)
            edit.addAllow = try InputParsing.domains(request.addAllow ?? [], field: "allow", parser: names)
            edit.removeAllow = try InputParsing.domains(request.removeAllow ?? [], field: "allow", parser: names)
            edit.addAddresses = try InputParsing.networks(request.addAddresses ?? [], field: "add-address")
            edit.removeAddresses = try InputParsing.networks(request.removeAddresses ?? [], field: "remove-address")
            edit.addApps = try InputParsing.apps(request.addApps ?? [], field: "add-app")
            edit.removeApps = request.removeApps ?? []
            edit.addAppCategories = try InputParsing.appCategories(request.addAppCategories ?? [], field: "add-app-category")
            edit.removeAppCategories = try InputParsing.appCategories(request.removeAppCategories ?? [], field: "remove-app-category")
            edit.running = try InputParsing.running(request.running)
            edit.addServices = request.addServices ?? []
            edit.removeServices = request.removeServices ?? []
            edit.displayName = request.displayName
            edit.description = request.description
            edit.strict = request.strict
            edit.icon = request.icon
            edit.color = request.color
            edit.addCategories = request.addCategories ?? []
            edit.removeCategories = request.removeCategories ?? []
            edit.addLists = request.addLists ?? []
            edit.removeLists = request.removeLists ?? []
            edit.addPaths = try InputParsing.pathRules(request.addPaths ?? [], field: "add-path", parser: names)
            edit.removePaths = try InputParsing.pathRules(request.removePaths ?? [], field: "remove-path", parser: names)
            edit.addAllowPaths = try InputParsing.pathRules(request.addAllowPaths ?? [], field: "add-allow-path", parser: names)
            edit.removeAllowPaths = try InputParsing.pathRules(request.removeAllowPaths ?? [], field: "remove-allow-path", parser: names)
            edit.addKeywords = try InputParsing.keywords(request.addKeywords ?? [], field: "add-keyword")
            edit.removeKeywords = try InputParsing.keywords(request.removeKeywords ?? [], field: "remove-keyword")
            let name = context.parameter("name")
            let updated = try await context.call { () async throws(ProfileError) in try await coordinator.updateProfile(name, edit) }
            return ProfileInfo(await profiles.expansion(updated), includeExpansion: true)
        }
        router.add(Endpoints.deleteProfile) { context throws(APIError) in
            let name = context.parameter("name")
            try await context.call { () async throws(ProfileError) in try await coordinator.deleteProfile(name) }
            return Deleted(deleted: name)
        }
    }
}
