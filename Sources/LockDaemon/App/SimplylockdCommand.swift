import ArgumentParser
import LockCore
import LockProtocol
import LockStore

/// `simplylockd`: the SimplyLock daemon.
public struct SimplylockdCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "simplylockd",
        abstract: "The SimplyLock focus-blocking daemon.",
        discussion: """
            Enforces blocks in the hosts file, keeps sessions across restarts and answers the control API \
            (HTTP/1.1 + JSON) on a Unix socket. Normally started by systemd; `lockctl` talks to it.
            """,
        version: API.softwareVersion)

    @Option(help: "Prefix for every default path (a scratch root for demos and tests).")
    var root: String = "/"

    @Option(help: "Configuration file (default: ROOT/etc/simplylock/simplylockd.toml).")
    var config: String?

    @Option(help: "Hosts file to manage (default: ROOT/etc/hosts).")
    var hosts: String?

    @Option(help: "Control socket (default: ROOT/run/simplylock/lockctl.sock).")
    var socket: String?

    @Option(help: "State directory (default: ROOT/var/lib/simplylock).")
    var stateDir: String?

    @Option(help: "Custom profiles directory (default: ROOT/etc/simplylock/profiles.d).")
    var profilesDir: String?

    @Option(help: "Schedules directory (default: ROOT/etc/simplylock/schedules.d).")
    var schedulesDir: String?

    @Option(help: "Shipped data directory with services.toml and profiles/ (default: found next to the binary).")
    var dataDir: String?

    @Option(help: "Enforcers to run, comma-separated (hosts, nftables, dns, apps); overrides the configuration.")
    var enforcers: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (overrides the configuration).")
    var logLevel: String?

    public init() {}

    public func validate() throws {
        if let enforcers {
            let names = enforcers.split(separator: ",").map(String.init)
            if let unknown = names.first(where: { !DaemonConfiguration.knownEnforcers.contains($0) }) {
                throw ValidationError("--enforcers: unknown enforcer \"\(unknown)\" (\(DaemonConfiguration.knownEnforcers.sorted().joined(separator: ", ")))")
            }
            guard names.contains("hosts") else { throw ValidationError("--enforcers: \"hosts\" is required") }
        }
        if let logLevel, !["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) {
            throw ValidationError("--log-level: \"\(logLevel)\" is not a log level")
        }
    }

    public func run() async throws {
        // First: this reads and clears LISTEN_* before anything else could start a child.
        let inherited: [InheritedSocket]
        do { inherited = try SocketActivation.listeningUnixSockets() ?? [] } catch {
            throw DaemonFailure(message: "socket activation: \(error)")
        }
        var paths = Paths(root: root, dataDirectory: DataDirectory.locate(explicit: dataDir))
        if let config { paths.configFile = config }
        if let hosts { paths.hostsFile = hosts }
        if let socket { paths.socket = socket }
        if let stateDir { paths.stateDirectory = stateDir }
        if let profilesDir { paths.profilesDirectory = profilesDir }
        if let schedulesDir { paths.schedulesDirectory = schedulesDir }
        do {
            try await Daemon(paths: paths, logLevelOverride: logLevel, inheritedSockets: inherited,
                             enforcersOverride: enforcers.map { $0.split(separator: ",").map(String.init) }).run()
        } catch let error as DaemonStartError {
            throw DaemonFailure(message: error.description)
        } catch let error as ControlSocket.Failure {
            throw DaemonFailure(message: error.description)
        }
    }
}

/// A fatal start-up problem, printed as one line.
struct DaemonFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { "simplylockd: \(message)" }
}
