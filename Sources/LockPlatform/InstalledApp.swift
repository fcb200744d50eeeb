import LockCore

/// An application installed on the machine, as the app catalog found it.
public struct InstalledApp: Sendable, Equatable, Codable {
    /// How users name it: the desktop id (`steam` for `steam.desktop`), the flatpak id, the
    /// snap name, or a path for apps named by path.
    public var id: String
    /// Display name (`Name=`), or the id.
    public var name: String
    /// `Categories=` as written.
    public var categories: [String]
    /// The `.desktop` files it was read from.
    public var desktopFiles: [String]
    /// The flatpak application id, for flatpak apps.
    public var flatpakID: String?
    /// The snap name, for snaps.
    public var snapName: String?
    /// `NoDisplay=true` in its entry: installed, not shown in menus.
    public var noDisplay: Bool
    /// What blocking it denies: programs and scripts, each with its identity.
    public var executables: [ExecutableFile]

    /// Creates an entry; executables are de-duplicated by identity and path.
    public init(
        id: String, name: String, categories: [String] = [], desktopFiles: [String] = [], flatpakID: String? = nil,
        snapName: String? = nil, noDisplay: Bool = false, executables: [ExecutableFile]
    ) {
        self.id = id
        self.name = name
        self.categories = categories
        self.desktopFiles = desktopFiles
        self.flatpakID = flatpakID
        self.snapName = snapName
        self.noDisplay = noDisplay
        var seen: Set<String> = []
        self.executables = executables.filter { seen.insert($0.path).inserted }
    }

    /// What a block of this app gives enforcers: both the paths as named and their real
    /// targets (the enforcer resolves them to identities again when it applies).
    ///
    /// - Throws: `AppLookupError.noExecutables` when none of its programs was found: a block
    ///   of it would block nothing.
    public func blocked(strict: Bool = false, running: BlockedApp.RunningPolicy = .terminate) throws(AppLookupError)
        -> BlockedApp
    {
        guard !executables.isEmpty else { throw .noExecutables(id: id) }
        return BlockedApp(
            id: id, name: name, executables: executables.flatMap { [$0.path, $0.resolved] }, strict: strict,
            running: running)
    }

    /// True when it is in `category` (or an additional category tied to it).
    public func isIn(_ category: AppCategory) -> Bool { category.matches(categories) }

    /// Another entry for the same id (a user's own `steam.desktop`, a second snap app): this
    /// one's name and flags, categories and executables from both.
    func merged(with other: InstalledApp) -> InstalledApp {
        InstalledApp(
            id: id, name: name, categories: categories + other.categories.filter { !categories.contains($0) },
            desktopFiles: desktopFiles + other.desktopFiles, flatpakID: flatpakID ?? other.flatpakID,
            snapName: snapName ?? other.snapName, noDisplay: noDisplay && other.noDisplay,
            executables: executables + other.executables)
    }
}
