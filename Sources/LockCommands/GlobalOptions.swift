import ArgumentParser
import Foundation
import LockClient
import LockCore
import LockProtocol

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Prefix of every default path, as given to `simplylockd --root`.")
    var root: String = "/"

    @Option(help: "Control socket (default: $SIMPLYLOCK_SOCKET, else ROOT/run/simplylock/lockctl.sock).")
    var socket: String?

    @Flag(help: "Print machine-readable JSON instead of text.")
    var json = false

    /// The socket to use: `--socket`, then `$SIMPLYLOCK_SOCKET`, then the root's default.
    var socketPath: String {
        if let socket { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment[API.socketEnvironmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return Paths(root: root).socket
    }

    var client: LockClient { LockClient(socketPath: socketPath) }

    /// Runs a client call, turning its errors into command failures.
    func call<T>(_ body: (LockClient) async throws -> T) async throws -> T {
        do { return try await body(client) } catch let error as ClientError { throw CommandFailure(error) }
    }

    /// Prints `value` as pretty JSON when `--json` was given; returns whether it did.
    func printJSON(_ value: some Encodable) throws -> Bool {
        guard json else { return false }
        let data = try API.makeEncoder(pretty: true).encode(value)
        print(String(decoding: data, as: UTF8.self))
        return true
    }
}
