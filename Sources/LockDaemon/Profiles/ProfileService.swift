import LockCore
import LockStore
import Logging

/// The profiles: shipped system ones and custom files, the service catalog they refer to, and
/// every change to them. Changes that reach running sessions or schedules go through the
/// `Coordinator`, which calls this service first.
public actor ProfileService: ProfileCatalog {
    private var store: ProfileStore {
        didSet { expansions.removeAll() }
    }
    private let logger: Logger
    private let lists: @Sendable (String) -> BlocklistReference?
    /// Each profile's rules, expanded once and shared: sessions started from a profile, the
    /// enforcers and the API all hold the same compact storage, and comparing them is free.
    private var expansions: [String: ProfileExpansion] = [:]

    /// A service over `store` as loaded; `lists` gives the current version of an imported list
    /// by name (profiles expand to it).
    public init(store: ProfileStore, logger: Logger, lists: @escaping @Sendable (String) -> BlocklistReference? = { _ in nil }) {
        self.store = store
        self.logger = logger
        self.lists = lists
    }

    // MARK: - Queries

    /// The profile called `name`.
    public func profile(_ name: String) -> Profile? { store.profile(name) }

    public func expansion(of name: String) -> ProfileExpansion? {
        if let cached = expansions[name] { return cached }
        guard let profile = store.profile(name) else { return nil }
        let expansion = ProfileExpansion(profile: profile, rules: store.rules(for: profile, lists: lists))
        expansions[name] = expansion
        return expansion
    }

    public func exists(_ name: String) -> Bool { store.profile(name) != nil }

    public func strictDefaults() -> [String: Bool] { store.profiles.mapValues(\.strict) }

    /// Every profile with its rules, system ones first, then by name.
    public func all() -> [ProfileExpansion] {
        store.sorted.compactMap { expansion(of: $0.name) }
    }

    /// How many profiles there are.
    public var count: Int { store.profiles.count }

    /// Files that could not be loaded, from the last reload.
    public var problems: [FileProblem] { store.problems }

    /// The service catalog.
    public var catalog: ServiceCatalog { store.catalog }

    /// Forgets the expansions: the current version of an imported list changed (or the list
    /// is gone), and profiles naming it expand to the new one from now on.
    public func listsChanged() { expansions.removeAll() }

    /// The custom profiles that name the imported list `list`.
    public func users(ofList list: String) -> [String] {
        store.sorted.filter { $0.lists.contains(list) }.map(\.name)
    }

    // MARK: - Changes

    /// Adds a custom profile and writes its file.
    public func create(_ profile: Profile) throws(ProfileError) -> Profile {
        do throws(ProfileStore.Failure) { try store.create(profile) } catch { throw ProfileError(error) }
        logger.info("profile created", metadata: ["profile": "\(profile.name)"])
        return store.profile(profile.name) ?? profile
    }

    /// Changes a custom profile and rewrites its file; returns it before and after.
    public func update(_ name: String, _ edit: ProfileEdit) throws(ProfileError) -> (old: Profile, new: Profile) {
        guard let current = store.profile(name) else { throw .notFound(name) }
        guard current.kind == .custom else { throw .system(name) }
        let edited = try edit.applied(to: current)
        do throws(ProfileStore.Failure) { _ = try store.update(name) { (profile: inout Profile) throws(FieldError) in profile = edited } } catch {
            throw ProfileError(error)
        }
        logger.info("profile updated", metadata: ["profile": "\(name)"])
        return (current, store.profile(name) ?? edited)
    }

    /// Writes back an earlier version of a custom profile (undoing an update that could not
    /// be enforced).
    public func restore(_ profile: Profile) throws(ProfileError) {
        do throws(ProfileStore.Failure) { _ = try store.update(profile.name) { (current: inout Profile) throws(FieldError) in current = profile } } catch {
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
