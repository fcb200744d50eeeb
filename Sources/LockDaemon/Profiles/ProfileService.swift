import LockCore
import LockStore
import Logging

/// The profiles: shipped system ones and custom files, the service catalog they refer to, and
/// every change to them. Changes that reach running sessions or schedules go through the
/// `Coordinator`, which calls this service first.
public actor ProfileService: ProfileCatalog {
    private var store: ProfileStore
    private let logger: Logger

    /// A service over `store` as loaded.
    public init(store: ProfileStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    // MARK: - Queries

    /// The profile called `name`.
    public func profile(_ name: String) -> Profile? { store.profile(name) }

    public func expansion(of name: String) -> ProfileExpansion? {
        store.profile(name).map { ProfileExpansion(profile: $0, rules: store.rules(for: $0)) }
    }

    public func exists(_ name: String) -> Bool { store.profile(name) != nil }

    public func strictDefaults() -> [String: Bool] { store.profiles.mapValues(\.strict) }

    /// Every profile with its rules, system ones first, then by name.
    public func all() -> [ProfileExpansion] {
        store.sorted.map { ProfileExpansion(profile: $0, rules: store.rules(for: $0)) }
    }

    /// Files that could not be loaded, from the last reload.
    public var problems: [FileProblem] { store.problems }

    /// The service catalog.
    public var catalog: ServiceCatalog { store.catalog }

    // MARK: - Changes

    /// Adds a custom profile and writes its file.
    public func create(_ profile: Profile) throws(ProfileError) -> Profile {
        do throws(ProfileStore.Failure) { try store.create(profile) } catch { throw ProfileError(error) }
        logger.info("profile created", metadata: ["profile": "\(profile.name)"])
        return store.profile(profile.name) ?? profile
    }

    /// A custom profile before and after `edit`, each with its rules, without changing anything
    /// (to see what the edit would take away from a running strict block).
    public func preview(_ name: String, _ edit: ProfileEdit) throws(ProfileError) -> (old: ProfileExpansion, new: ProfileExpansion) {
        guard let current = store.profile(name) else { throw .notFound(name) }
        guard current.kind == .custom else { throw .system(name) }
        let edited = try edit.applied(to: current)
        do { try edited.validate(against: store.catalog) } catch { throw .invalid(error) }
        return (ProfileExpansion(profile: current, rules: store.rules(for: current)),
                ProfileExpansion(profile: edited, rules: store.rules(for: edited)))
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
