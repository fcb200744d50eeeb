import Foundation
import Glibc
import LockCore
import LockNames
import LockPlatform

/// System and custom profiles, and the service catalog they refer to.
///
/// System profiles come from the read-only data directory; custom ones are files in
/// `profiles.d`. A file that fails to load is reported (file, line, field) and left out, or,
/// on a reload, its last good version is kept, so one bad file never disables the others.
public struct ProfileStore: Sendable {
    /// Why a change to the profiles was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// No such profile.
        case notFound(String)
        /// A profile with that name exists.
        case exists(String)
        /// System profiles are read-only.
        case system(String)
        /// A value is invalid.
        case invalid(FieldError)
        /// The file could not be written.
        case io(String)
    }

    /// Where files live.
    public let paths: Paths
    /// Parses the domains of profile files and requests, created once by the daemon.
    public let names: DomainNameParser
    /// The service catalog.
    public private(set) var catalog = ServiceCatalog()
    /// Profiles by name.
    public private(set) var profiles: [String: Profile] = [:]
    /// Problems found by the last load.
    public private(set) var problems: [FileProblem] = []
    /// Each profile file as last read, with its version then: an unchanged file is not read
    /// again. TOMLKit 0.6.0 never frees a parsed document, so every read of a 100 000-name
    /// profile kept about 17 MB for good.
    private var lastRead: [String: (version: FileVersion, profile: Profile)] = [:]

    /// Creates an empty store; call `reload()` to read the files.
    public init(paths: Paths, names: DomainNameParser) {
        self.paths = paths
        self.names = names
    }

    /// Reads the catalog and every profile file again. Returns the problems found.
    @discardableResult
    public mutating func reload() -> [FileProblem] {
        var found: [FileProblem] = []
        let catalogPath = paths.dataDirectory + "/services.toml"
        let previousCatalog = catalog
        do { catalog = try ServiceCatalogFile.load(catalogPath, names: names) } catch { found.append(error) }
        // Profiles expand their services through the catalog: a new catalog means reading them anew.
        if catalog != previousCatalog { lastRead = [:] }
        var read: [String: (version: FileVersion, profile: Profile)] = [:]

        var loaded: [String: Profile] = [:]
        let sources: [(String, Profile.Kind)] = [(paths.dataDirectory + "/profiles", .system), (paths.profilesDirectory, .custom)]
        for (directory, kind) in sources {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted()
            for file in names {
                let path = directory + "/" + file
                do {
                    // The version before the read: a change during the read shows at the next reload.
                    let version = FileVersion(path: path)
                    let profile: Profile
                    if let version, let last = lastRead[path], last.version == version {
                        profile = last.profile
                    } else {
                        profile = try ProfileFile.load(path, kind: kind, catalog: catalog, names: self.names)
                    }
                    if let version { read[path] = (version, profile) }
                    if let existing = loaded[profile.name] {
                        found.append(
                            FileProblem(
                                file: path, field: "name",
                                message: "\"\(profile.name)\" is already a \(existing.kind.rawValue) profile; ignored"))
                        continue
                    }
                    loaded[profile.name] = profile
                } catch {
                    found.append(error)
                    let name = file.replacingSuffix(".toml")
                    if let previous = profiles[name], previous.kind == kind, loaded[name] == nil { loaded[name] = previous }
                }
            }
        }
        profiles = loaded
        problems = found
        lastRead = read
        return found
    }

    /// The profile called `name`.
    public func profile(_ name: String) -> Profile? { profiles[name] }

    /// Profiles sorted: system first, then by name.
    public var sorted: [Profile] {
        profiles.values.sorted { ($0.kind == .system ? 0 : 1, $0.name) < ($1.kind == .system ? 0 : 1, $1.name) }
    }

    /// The expanded rules of `profile`; `lists` gives the version in force of each imported
    /// list it names.
    public func rules(for profile: Profile, lists: (String) -> BlocklistReference? = { _ in nil }) -> BlockRules {
        catalog.rules(for: profile, lists: lists)
    }

    /// Adds a custom profile and writes its file.
    public mutating func create(_ profile: Profile) throws(Failure) {
        do { try profile.validate(against: catalog) } catch { throw .invalid(error) }
        guard profiles[profile.name] == nil else {
            throw profiles[profile.name]?.kind == .system ? .system(profile.name) : .exists(profile.name)
        }
        var custom = profile
        custom.kind = .custom
        try write(custom)
        profiles[custom.name] = custom
    }

    /// Changes a custom profile and rewrites its file.
    public mutating func update(_ name: String, _ change: (inout Profile) throws(FieldError) -> Void) throws(Failure) -> Profile {
        guard var profile = profiles[name] else { throw .notFound(name) }
        guard profile.kind == .custom else { throw .system(name) }
        do {
            try change(&profile)
            let (friction, paths, allowPaths, keywords) = (profile.friction, profile.paths, profile.allowPaths, profile.keywords)
            profile = Profile(
                name: profile.name, displayName: profile.displayName, description: profile.description,
                icon: profile.icon, color: profile.color, domains: profile.domains, services: profile.services,
                categories: profile.categories, allow: profile.allow, addresses: profile.addresses,
                mode: profile.mode, apps: profile.apps, appCategories: profile.appCategories,
                running: profile.running, strict: profile.strict, kind: .custom, lists: profile.lists)
            // The initialiser de-duplicates the lists; what it does not take is carried over (an
            // edit used to drop the profile's [friction] section).
            profile.friction = friction
            profile.paths = paths
            profile.allowPaths = allowPaths
            profile.keywords = keywords
            try profile.validate(against: catalog)
        } catch { throw .invalid(error) }
        try write(profile)
        profiles[name] = profile
        return profile
    }

    /// Deletes a custom profile and its file.
    public mutating func delete(_ name: String) throws(Failure) {
        guard let profile = profiles[name] else { throw .notFound(name) }
        guard profile.kind == .custom else { throw .system(name) }
        let path = file(for: name)
        if unlink(path) != 0, errno != ENOENT { throw .io(SystemError("unlink", path).description) }
        AtomicFile.syncDirectory(paths.profilesDirectory)
        profiles[name] = nil
    }

    /// The file of a custom profile.
    public func file(for name: String) -> String { paths.profilesDirectory + "/\(name).toml" }

    private func write(_ profile: Profile) throws(Failure) {
        do {
            try AtomicFile.makeDirectories(paths.profilesDirectory)
            try AtomicFile.write(Array(ProfileFile.render(profile).utf8), to: file(for: profile.name))
        } catch { throw .io(error.description) }
    }
}
