import ArgumentParser
import Foundation
import LockCore
import LockPlatform
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

    @Option(
        help: ArgumentHelp(
            "Enforcers to run, comma-separated (\(EnforcerKind.all.map(\.name).joined(separator: ", "))); overrides the configuration."))
    var enforcers: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (overrides the configuration).")
    var logLevel: String?

    @Flag(
        help: ArgumentHelp(
            "Check every configuration, profile and schedule file, print every problem, and exit (1 when any).",
            discussion: "PATH is the configuration file to check (default: --config, else ROOT/etc/simplylock/simplylockd.toml)."))
    var checkConfig = false

    @Flag(
        help:
            "End every saved block, strict ones too, remove the hosts section and the firewall table, and exit (for uninstalling; refused while simplylockd runs)."
    )
    var release = false

    @Argument(help: ArgumentHelp("With --check-config: the configuration file to check.", valueName: "path"))
    var checkPath: String?

    public init() {}

    public func validate() throws {
        if checkPath != nil, !checkConfig {
            throw ValidationError("unexpected argument \"\(checkPath ?? "")\" (a path is only taken with --check-config)")
        }
        if let enforcers {
            let names = enforcers.split(separator: ",").map(String.init)
            if let unknown = names.first(where: { !DaemonConfiguration.knownEnforcers.contains($0) }) {
                throw ValidationError(
                    "--enforcers: unknown enforcer \"\(unknown)\" (\(DaemonConfiguration.knownEnforcers.sorted().joined(separator: ", ")))")
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
        if checkConfig {
            if let checkPath { paths.configFile = checkPath }
            if let profilesDir { paths.profilesDirectory = profilesDir }
            if let schedulesDir { paths.schedulesDirectory = schedulesDir }
            throw ExitCode(ConfigurationCheckOutput.run(paths: paths))
        }
        if release {
            if let hosts { paths.hostsFile = hosts }
            if let stateDir { paths.stateDirectory = stateDir }
            throw ExitCode(
                try await BlockRelease.run(paths: paths, enforcersOverride: enforcers.map { $0.split(separator: ",").map(String.init) }))
        }
        MallocPolicy.applyForDaemon()
        if let hosts { paths.hostsFile = hosts }
        if let socket { paths.socket = socket }
        if let stateDir { paths.stateDirectory = stateDir }
        if let profilesDir { paths.profilesDirectory = profilesDir }
        if let schedulesDir { paths.schedulesDirectory = schedulesDir }
        do {
            try await Daemon(
                paths: paths, logLevelOverride: logLevel, inheritedSockets: inherited,
                enforcersOverride: enforcers.map { $0.split(separator: ",").map(String.init) }
            ).run()
        } catch let error as DaemonStartError {
            throw DaemonFailure(message: error.description)
        } catch let error as ControlSocket.Failure {
            throw DaemonFailure(message: error.description)
        }
    }
}

extension SimplylockdCommand {
    /// Parses the command line and runs the daemon (or `--check-config`). Errors are one line,
    /// `simplylockd: <what went wrong>`, and for a usage error one hint line, as lockctl prints
    /// them; usage errors exit 64 (EX_USAGE), start-up failures 1.
    /// Runs with the arguments the process was given. When they cannot be read at all, it
    /// refuses to start: with none, the defaults would manage the machine's real files.
    public static func runWithProcessArguments() async -> Never {
        guard let arguments = ProcessArguments.read else {
            FileHandle.standardError.write(
                Data("simplylockd: cannot read the command line (no /proc?); not starting\nhint: mount /proc in the chroot\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await run(arguments: arguments)
    }

    public static func run(arguments: [String]) async -> Never {
        var command: any ParsableCommand
        do { command = try parseAsRoot(arguments) } catch {
            let code = exitCode(for: error)
            // --help and --version.
            if code == .success { exit(withError: error) }
            var message = Self.message(for: error)
            if let newline = message.firstIndex(of: "\n") { message = String(message[..<newline]) }
            if let first = message.first, first.isUppercase { message = first.lowercased() + message.dropFirst() }
            FileHandle.standardError.write(Data("simplylockd: \(message)\nhint: see `simplylockd --help`\n".utf8))
            Foundation.exit(code.rawValue)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch  where exitCode(for: error) == .success {
            // `--help` parses to the parser's help command, which asks for this by throwing.
            exit(withError: error)
        } catch {
            FileHandle.standardError.write(Data("\(error is DaemonFailure ? "\(error)" : "simplylockd: \(error)")\n".utf8))
            Foundation.exit(1)
        }
    }
}

/// A fatal start-up problem, printed as one line.
struct DaemonFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { "simplylockd: \(message)" }
}
