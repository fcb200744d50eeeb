/// An installed application as `GET /v1/apps` lists it.
public struct AppInfo: Sendable, Equatable, Codable {
    /// The id profiles use (`steam`, a flatpak id, a snap name).
    public var id: String
    /// Display name (`Name=`).
    public var name: String
    /// `Categories=` as written in its desktop entry.
    public var categories: [String]
    /// Programs and scripts a block of it denies (real paths), sorted.
    public var executables: [String]
    /// Its flatpak application id, for flatpaks.
    public var flatpakID: String?
    /// Its snap name, for snaps.
    public var snapName: String?
    /// True when its entry says `NoDisplay=true` (not shown in menus).
    public var hidden: Bool
    /// The desktop entries it was read from.
    public var desktopFiles: [String]

    /// Creates an entry.
    public init(
        id: String, name: String, categories: [String], executables: [String], flatpakID: String? = nil,
        snapName: String? = nil, hidden: Bool = false, desktopFiles: [String] = []
    ) {
        self.id = id
        self.name = name
        self.categories = categories
        self.executables = executables
        self.flatpakID = flatpakID
        self.snapName = snapName
        self.hidden = hidden
        self.desktopFiles = desktopFiles
    }
}

/// `GET /v1/apps`.
public struct AppList: Sendable, Equatable, Codable {
    /// Installed apps, by id.
    public var apps: [AppInfo]
    /// Desktop entries that could not be read (`path: reason`).
    public var problems: [String]

    /// Creates a list.
    public init(apps: [AppInfo], problems: [String] = []) {
        self.apps = apps
        self.problems = problems
    }
}
