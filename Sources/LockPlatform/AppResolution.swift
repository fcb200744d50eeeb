import LockCore

/// What a profile's apps and app categories stand for on this machine now: the apps found,
/// ready for enforcers, and the names that were not found.
public struct AppResolution: Sendable, Equatable {
    /// One entry per app, sorted by id.
    public var apps: [BlockedApp]
    /// Names the profile gives that are not installed (or whose programs are not on disk).
    public var missing: [String]

    /// Pairs the two lists.
    public init(apps: [BlockedApp] = [], missing: [String] = []) {
        self.apps = BlockedApp.union(apps)
        self.missing = missing
    }
}

extension AppCatalog {
    /// The apps `names` and `categories` stand for in this catalog, each to be treated as
    /// `running` says. Names not found are listed in `missing` (a profile may name apps that
    /// are not installed here); categories take the apps shown in menus that carry them (or
    /// an additional category tied to them), leaving out entries with `NoDisplay=true`
    /// (handlers and helpers, not apps people start) and apps without a program on disk.
    public func resolve(apps names: [String], categories: [AppCategory], running: BlockedApp.RunningPolicy) -> AppResolution {
        var found: [BlockedApp] = []
        var missing: [String] = []
        for name in names {
            do {
                found.append(try lookup(name).blocked(running: running))
            } catch {
                missing.append(name)
            }
        }
        for category in categories {
            for app in apps(in: category) where !app.noDisplay {
                if let blocked = try? app.blocked(running: running) { found.append(blocked) }
            }
        }
        return AppResolution(apps: found, missing: missing)
    }
}
