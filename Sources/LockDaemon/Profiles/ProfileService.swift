import LockCore
import LockPlatform
import LockStore
import Logging

/// The profiles: shipped system ones and custom files, the service catalog and the installed
/// apps they refer to, and every change to them. Changes that reach running sessions or
/// schedules go through the `Coordinator`, which calls this service first.
public actor ProfileService: ProfileCatalog {
    private var store: ProfileStore {
        didSet { siteRules.removeAll() }
    }
    private let apps: AppCatalogService
    private let logger: Logger
    private let lists: @Sendable (String) -> BlocklistReference?
    /// Each profile's site rules, expanded once and shared: sessions started from a profile, the
    /// enforcers and the API all hold the same compact storage, and comparing them is free. Apps
    /// are not cached: the app catalog rescans when packages change, and resolving is cheap.
    /// Imported lists are part of them, at their current versions (`listsChanged`).
    private var siteRules: [String: (profile: Profile, rules: BlockRules)] = [:]

    /// A service over `store` as loaded, resolving apps through `apps`; `lists` gives the
    /// current version of an imported list by name (profiles expand to it).
    public init(
        store: ProfileStore, apps: AppCatalogService, logger: Logger,
        lists: @escaping @Sendable (String) -> BlocklistReference? = { _ in nil }
    ) {
        self.store = store
        self.apps = apps
        self.logger = logger
        self.lists = lists
    }

    // MARK: - Queries

    /// The profile called `name`.
    public func profile(_ name: String) -> Profile? { store.profile(name) }

    public func expansion(of name: String) async -> ProfileExpansion? {
        guard let profile = store.profile(name) else { return nil }
        return await expansion(profile)
    }

    /// `profile` with its rules: domains through the service catalog, apps and app categories
    /// through the app catalog as it is now.
    public func expansion(_ profile: Profile) async -> ProfileExpansion {
        var rules = siteRules(for: profile)
        let resolution = await apps.resolve(profile)
        rules.apps = resolution.apps
        rules.missingApps = resolution.missing
        return ProfileExpansion(profile: profile, rules: rules)
    }

    private func siteRules(for profile: Profile) -> BlockRules {
        if let cached = siteRules[profile.name], cached.profile == profile { return cached.rules }
        let rules = store.rules(for: profile, lists: lists)
        siteRules[profile.name] = (profile, rules)
        return rules
    }

    public func exists(_ name: String) -> Bool { store.profile(name) != nil }

    public func strictDefaults() -> [String: Bool] { store.profiles.mapValues(\.strict) }

    /// Every profile with its rules, system ones first, then by name.
    public func all() async -> [ProfileExpansion] {
        var result: [ProfileExpansion] = []
        for profile in store.sorted { result.append(await expansion(profile)) }
        return result
    }

    /// How many profiles there are.
    public var count: Int { store.profiles.count }

    /// Files that could not be loaded, from the last reload.
    public var problems: [FileProblem] { store.problems }

    /// Every profile as written (no expansion: that asks the app catalog).
    public var written: [Profile] { Array(store.profiles.values) }

    /// The service catalog.
    public var catalog: ServiceCatalog { store.catalog }

    /// Forgets the expansions: the current version of an imported list changed (or the list
    /// is gone), and profiles naming it expand to the new one from now on.
    public func listsChanged() { siteRules.removeAll() }

    /// The custom profiles that name the imported list `list`.
    public func users(ofList list: String) -> [String] {
        store.sorted.filter { $0.lists.contains(list) }.map(\.name)
    }

    // MARK: - Changes

    /// Adds a custom profile and writes its file. Every app it names must be installed.
    public func create(_ profile: Profile) async throws(ProfileError) -> Profile {
        if !profile.apps.isEmpty || !profile.appCategories.isEmpty { await apps.rescan() }
        var profile = profile
        profile.apps = try await installed(profile.apps)
        do throws(ProfileStore.Failure) { try store.create(profile) } catch { throw ProfileError(error) }
        logger.info("profile created", metadata: ["profile": "\(profile.name)"])
        return store.profile(profile.name) ?? profile
    }

    /// A custom profile before and after `edit`, each with its rules, without changing anything
    /// (to see what the edit would take away from a running strict block).
    public func preview(_ name: String, _ edit: ProfileEdit) async throws(ProfileError) -> (old: ProfileExpansion, new: ProfileExpansion) {
        guard let current = store.profile(name) else { throw .notFound(name) }
        guard current.kind == .custom else { throw .system(name) }
        let edited = try edit.applied(to: current)
        do { try edited.validate(against: store.catalog) } catch { throw .invalid(error) }
        // Not through the cache: the edit may still be refused.
        var rules = store.rules(for: edited, lists: lists)
        let resolution = await apps.resolve(edited)
        rules.apps = resolution.apps
        rules.missingApps = resolution.missing
        return (await expansion(current), ProfileExpansion(profile: edited, rules: rules))
    }

    /// Changes a custom profile and rewrites its file; returns it before and after. Apps added
    /// must be installed.
    public func update(_ name: String, _ edit: ProfileEdit) async throws(ProfileError) -> (old: Profile, new: Profile) {
        guard let current = store.profile(name) else { throw .notFound(name) }
        guard current.kind == .custom else { throw .system(name) }
        if !edit.addApps.isEmpty || !edit.addAppCategories.isEmpty { await apps.rescan() }
        // Changes come one at a time through the coordinator's gate, so nothing else changes
        // the profile while the catalog is asked.
        var edit = edit
        edit.addApps = try await installed(edit.addApps)
        let edited = try edit.applied(to: current)
        do throws(ProfileStore.Failure) {
            _ = try store.update(name) { (profile: inout Profile) throws(FieldError) in profile = edited }
        } catch {
            throw ProfileError(error)
        }
        logger.info("profile updated", metadata: ["profile": "\(name)"])
        return (current, store.profile(name) ?? edited)
    }

    /// The names to keep for apps people named: each must be installed (refused with the
    /// closest known names otherwise). A desktop id, flatpak id, snap name or path is kept as
    /// typed; a display name (`Fake Game`) or an id in another case becomes the app's id.
    private func installed(_ names: [String]) async throws(ProfileError) -> [String] {
        var kept: [String] = []
        for name in names {
            do throws(FieldError) { try AppName.validateTyped(name) } catch { throw .invalid(error) }
            let app: InstalledApp
            do throws(AppLookupError) { app = try await apps.lookup(name) } catch {
                throw .invalid(FieldError(field: "apps", value: name, reason: error.description))
            }
            let exact = app.id == name || app.flatpakID == name || app.snapName == name || name.hasPrefix("/")
            kept.append(exact ? name : app.id)
        }
        return kept
    }

    /// Writes back an earlier version of a custom profile (undoing an update that could not
    /// be enforced).
    public func restore(_ profile: Profile) throws(ProfileError) {
        do throws(ProfileStore.Failure) {
            _ = try store.update(profile.name) { (current: inout Profile) throws(FieldError) in current = profile }
        } catch {
            throw ProfileError(error)
        }
    }

    /// Deletes a custom profile and its file. Whether anything still uses it is the
    /// coordinator's question, asked before.
    public func delete(_ name: String) throws(ProfileError) {
        do throws(ProfileStore.Failure) { try store.delete(name) } catch { throw ProfileError(error) }
        logger.info("profile deleted", metadata: ["profile": "\(name)"])
    }

    /// Reads the catalog and every profile file again; a bad file keeps its last good version.
    public func reload() -> [FileProblem] {
        let problems = store.reload()
        for problem in problems { logger.warning("profile problem", metadata: ["problem": "\(problem)"]) }
        return problems
    }
}

extension ProfileError {
    init(_ failure: ProfileStore.Failure) {
        switch failure {
        case .notFound(let name): self = .notFound(name)
        case .exists(let name): self = .exists(name)
        case .system(let name): self = .system(name)
        case .invalid(let error): self = .invalid(error)
        case .io(let message): self = .io(message)
        }
    }
}
