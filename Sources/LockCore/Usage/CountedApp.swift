/// An app whose launches allowances count (`--opens`, `--cooldown`), as the app enforcer
/// receives it: its programs, the allowances that count it, and what to do when a launch
/// cannot be decided in time.
///
/// A **launch** is an exec of one of the app's programs by a user for whom no process of the
/// app runs at that moment. Execs while one runs (the app restarting itself, its helper
/// processes, a second window) are not launches and are never counted or refused.
public struct CountedApp: Sendable, Hashable, Codable, Comparable {
    /// The app's identifier (desktop id, flatpak id, snap name or a path).
    public var id: String
    /// Name shown to the user.
    public var name: String
    /// Absolute paths of its executables, sorted and unique.
    public var executables: [String]
    /// The allowances that count its launches, sorted and unique.
    public var allowances: [String]
    /// True when one of them is strict: a launch that cannot be decided in time is refused
    /// (otherwise it is allowed, uncounted).
    public var strict: Bool

    /// Creates an entry; executables and allowances are sorted and de-duplicated.
    public init(id: String, name: String? = nil, executables: some Sequence<String>, allowances: some Sequence<String>, strict: Bool) {
        self.id = id
        self.name = name ?? id
        self.executables = Array(Set(executables)).sorted()
        self.allowances = Array(Set(allowances)).sorted()
        self.strict = strict
    }

    public static func < (lhs: CountedApp, rhs: CountedApp) -> Bool { lhs.id < rhs.id }

    /// One entry per id: programs and allowances united, strict if any allowance is.
    public static func union(_ apps: some Sequence<CountedApp>) -> [CountedApp] {
        var byID: [String: CountedApp] = [:]
        for app in apps {
            byID[app.id] =
                byID[app.id].map {
                    CountedApp(
                        id: $0.id, name: $0.name, executables: $0.executables + app.executables, allowances: $0.allowances + app.allowances,
                        strict: $0.strict || app.strict)
                } ?? app
        }
        return byID.values.sorted()
    }
}

/// Whether an exec of a counted app is a launch (see `CountedApp`): only when none of the
/// processes running the app belongs to the same user.
public enum LaunchRule {
    /// True when an exec by `uid` is a launch, given the users of the processes that run the
    /// app now (`runningFor`).
    public static func isLaunch(by uid: UInt32, runningFor: some Sequence<UInt32>) -> Bool {
        !runningFor.contains(uid)
    }
}
