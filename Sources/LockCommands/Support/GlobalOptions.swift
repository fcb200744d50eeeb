import ArgumentParser
import Foundation
import LockClient
import LockCore
import LockProtocol

/// Options every command takes, before or after the command's name.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Prefix of every default path, as given to `simplylockd --root`.", valueName: "dir"))
    var root: String = "/"

    @Option(
        help: ArgumentHelp(
            "Control socket (default: $SIMPLYLOCK_SOCKET, else ROOT/run/simplylock/lockctl.sock).",
            valueName: "path"))
    var socket: String?

    @Flag(help: "Print machine-readable JSON instead of text (errors too, on stderr).")
    var json = false

    /// The socket to use: `--socket`, then `$SIMPLYLOCK_SOCKET`, then the root's default.
    var socketPath: String { Self.socketPath(root: root, socket: socket) }

    /// The socket rule, for callers that read the options themselves (`StatusPoll`).
    static func socketPath(root: String, socket: String?) -> String {
        if let socket { return socket }
        if let fromEnvironment = getenv(API.socketEnvironmentVariable).map({ String(cString: $0) }), !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return Paths(root: root).socket
    }

    var client: LockClient { LockClient(socketPath: socketPath) }

    /// Runs client calls, turning their errors into command failures; `fields` names the
    /// command's arguments and options after the request fields they fill.
    func call<T>(fields: FieldNames = FieldNames(), _ body: (LockClient) async throws -> T) async throws -> T {
        do { return try await body(client) } catch let error as ClientError {
            throw CommandFailure(error, fields: fields, unreachableHint: unreachableHint)
        }
    }

    /// What to do when nothing answers, for the way the socket was chosen.
    var unreachableHint: String {
        if socket != nil || ProcessInfo.processInfo.environment[API.socketEnvironmentVariable].map({ !$0.isEmpty }) == true {
            return "is simplylockd running with --socket \(socketPath)?"
        }
        if root != "/" { return "is `simplylockd --root \(root)` running?" }
        return "start it with `sudo systemctl start simplylockd.socket simplylockd.service`"
    }

    /// Prints `value` as pretty JSON when `--json` was given; returns whether it did.
    func printJSON(_ value: some Encodable) throws -> Bool {
        guard json else { return false }
        print(JSONText.pretty(value))
        return true
    }
}
