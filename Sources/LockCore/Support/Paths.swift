/// Every file and directory the daemon and CLI use, with the documented defaults, all under an
/// optional root prefix so that demos and tests never touch the real `/etc/hosts`.
public struct Paths: Sendable, Equatable {
    /// The prefix, `/` for a real installation.
    public var root: String
    /// The hosts file to manage.
    public var hostsFile: String
    /// The daemon's configuration file.
    public var configFile: String
    /// Directory of custom profiles (`NAME.toml`).
    public var profilesDirectory: String
    /// Directory of schedules (`NAME.toml`).
    public var schedulesDirectory: String
    /// Directory holding the SQLite state and history.
    public var stateDirectory: String
    /// The control socket.
    public var socket: String
    /// The resolver configuration the firewall enforcer reads to find DNS servers.
    public var resolvConf: String
    /// Directory of shipped, read-only data: `services.toml` and `profiles/`. Not under the
    /// root: it belongs to the installed package, not to the machine being managed.
    public var dataDirectory: String

    /// The defaults, under `root`.
    public init(root: String = "/", dataDirectory: String = "/usr/share/simplylock") {
        self.root = root
        hostsFile = Paths.join(root, "etc/hosts")
        configFile = Paths.join(root, "etc/simplylock/simplylockd.toml")
        profilesDirectory = Paths.join(root, "etc/simplylock/profiles.d")
        schedulesDirectory = Paths.join(root, "etc/simplylock/schedules.d")
        stateDirectory = Paths.join(root, "var/lib/simplylock")
        socket = Paths.join(root, "run/simplylock/lockctl.sock")
        resolvConf = Paths.join(root, "etc/resolv.conf")
        self.dataDirectory = dataDirectory
    }

    /// The SQLite database.
    public var stateDatabase: String { stateDirectory + "/state.sqlite" }

    /// Allowance files (`NAME.toml`).
    public var allowancesDirectory: String { Paths.join(root, "etc/simplylock/allowances.d") }

    /// Imported blocklists, in the daemon's compact form (`NAME.VERSION.list`).
    public var listsDirectory: String { stateDirectory + "/lists" }

    /// `root` and a relative path joined with exactly one slash.
    public static func join(_ root: String, _ relative: String) -> String {
        let trimmedRoot = root.hasSuffix("/") ? String(root.dropLast()) : root
        return trimmedRoot + "/" + relative
    }
}
