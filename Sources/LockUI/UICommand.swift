import ArgumentParser
import Foundation
import Glibc
import LockCore
import LockProtocol
import Logging
import ServiceLifecycle

/// `simplylock-ui`: the server behind `lockctl ui`, in a program of its own so that lockctl,
/// which status bars run every second, does not carry an event-loop library.
public struct SimplylockUI: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "simplylock-ui",
        abstract: "Serve SimplyLock's web UI on loopback (run through `lockctl ui`).",
        version: API.softwareVersion)

    @Option(help: ArgumentHelp("Prefix of every default path, as given to `simplylockd --root`.", valueName: "dir"))
    var root: String = "/"

    @Option(help: ArgumentHelp("Control socket (default: $SIMPLYLOCK_SOCKET, else ROOT/run/simplylock/lockctl.sock).", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Port on 127.0.0.1 and ::1 (default: a free one).", valueName: "port"))
    var port: Int = 0

    @Flag(help: "Print the address with its token instead of opening a browser.")
    var noOpen = false

    @Option(help: ArgumentHelp("The UI's files (default: $SIMPLYLOCK_UI_DIR, else the installed ones).", valueName: "dir"))
    var assets: String?

    @Flag(help: "Print the address as JSON.")
    var json = false

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port: \(port) is not a port (0 to 65535)") }
    }

    public func run() async throws {
        let files = try Assets(directory: Assets.locate(explicit: assets))
        let socketPath =
            socket ?? ProcessInfo.processInfo.environment[API.socketEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? Paths(root: root).socket
        // One server per user session and daemon: a later `lockctl ui` (the tray's Open) asks the
        // running one for a new address instead of starting another.
        var instance: UIInstance?
        switch UIInstance.locate(daemonSocket: socketPath) {
        case .success(let found):
            if try found.claim() == nil { return try reuse(found) }
            instance = found
        case .failure(let why):
            FileHandle.standardError.write(Data("simplylock-ui: \(why): a later `lockctl ui` starts another server\n".utf8))
        }
        let listening: UIServer.Listening
        do { listening = try await UIServer.listen(port: port) } catch {
            throw ValidationError("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        let token = Gate.randomHex(bytes: 32)
        let gate = Gate(port: listening.port, token: token)
        var logger = Logger(label: "simplylock-ui")
        logger.logLevel = ProcessInfo.processInfo.environment["SIMPLYLOCK_UI_LOG"] == "debug" ? .debug : .warning
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let instance {
            services.append(.init(service: try await UIHandoff.bind(instance, gate: gate, port: listening.port, logger: logger)))
        }
        let url = "http://127.0.0.1:\(listening.port)/?token=\(token)"
        var redirectFile: String?
        if !noOpen { redirectFile = Browser.open(url) }
        report(url: url, port: listening.port, opened: redirectFile != nil)
        if let problem = listening.ipv6Problem { FileHandle.standardError.write(Data("simplylock-ui: not on ::1: \(problem)\n".utf8)) }
        if !json { FileHandle.standardError.write(Data("simplylock-ui: serving until interrupted; the token works once\n".utf8)) }
        fflush(nil)
        defer { if let redirectFile { unlink(redirectFile) } }
        let server = UIServer(listening: listening, gate: gate, assets: files, socketPath: socketPath, logger: logger)
        services.append(.init(service: server))
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Another server for this daemon runs: it opens a new address (or gives it, with
    /// --no-open), and this process ends.
    private func reuse(_ instance: UIInstance) throws {
        let reply = try instance.ask(open: !noOpen)
        if port != 0, port != reply.port {
            FileHandle.standardError.write(Data("simplylock-ui: already serving on port \(reply.port); --port \(port) is not used\n".utf8))
        }
        report(url: reply.url, port: reply.port, opened: reply.opened, reused: true)
    }

    private func report(url: String, port: Int, opened: Bool, reused: Bool = false) {
        if json {
            print("{\"url\":\(Responses.quoted(url)),\"port\":\(port),\"opened\":\(opened),\"reused\":\(reused)}")
        } else if !opened {
            print(url)
        } else {
            print("opened SimplyLock in your browser (port \(port)\(reused ? ", already running" : ""))")
        }
    }
}
