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
        let listening: UIServer.Listening
        do { listening = try await UIServer.listen(port: port) } catch {
            throw ValidationError("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        let token = Gate.randomHex(bytes: 32)
        let url = "http://127.0.0.1:\(listening.port)/?token=\(token)"
        var redirectFile: String?
        if !noOpen { redirectFile = Browser.open(url) }
        if json {
            print("{\"url\":\(Responses.quoted(url)),\"port\":\(listening.port),\"opened\":\(redirectFile != nil)}")
        } else if redirectFile == nil {
            print(url)
        } else {
            print("opened SimplyLock in your browser (port \(listening.port))")
        }
        if let problem = listening.ipv6Problem { FileHandle.standardError.write(Data("simplylock-ui: not on ::1: \(problem)\n".utf8)) }
        if !json { FileHandle.standardError.write(Data("simplylock-ui: serving until interrupted; the token works once\n".utf8)) }
        fflush(nil)
        defer { if let redirectFile { unlink(redirectFile) } }
        var logger = Logger(label: "simplylock-ui")
        logger.logLevel = ProcessInfo.processInfo.environment["SIMPLYLOCK_UI_LOG"] == "debug" ? .debug : .warning
        let server = UIServer(
            listening: listening, gate: Gate(port: listening.port, token: token), assets: files, socketPath: socketPath, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
