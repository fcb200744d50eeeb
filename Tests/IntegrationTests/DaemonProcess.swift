import Foundation
import Glibc
import LockClient
import LockProtocol
import TestSupport

/// A real `simplylockd` running under a test root.
final class DaemonProcess: @unchecked Sendable {
    let root: TestRoot
    private(set) var process: ChildProcess
    private let logPath: String
    let extraArguments: [String]
    let wrapper: [String]

    /// Starts the daemon (through `wrapper`, a command that ends by running its arguments, if
    /// given) and waits until its socket answers.
    init(root: TestRoot, arguments: [String] = [], environment: [String: String] = [:], wrapper: [String] = []) throws {
        self.root = root
        extraArguments = arguments
        self.wrapper = wrapper
        logPath = root.path + "/daemon.log"
        process = try DaemonProcess.launch(root: root, arguments: arguments, environment: environment, wrapper: wrapper, log: logPath)
        try waitForSocket()
    }

    private static func launch(
        root: TestRoot, arguments: [String], environment: [String: String], wrapper: [String],
        log: String
    ) throws -> ChildProcess {
        // The hosts enforcer only, unless a test asks otherwise: nftables would change the
        // machine's own ruleset (its tests run the daemon in a private network namespace).
        let enforcers = arguments.contains("--enforcers") ? [] : ["--enforcers", "hosts"]
        let daemonArguments = ["--root", root.path, "--data-dir", Binaries.dataDirectory, "--log-level", "debug"] + enforcers + arguments
        let command = wrapper + [Binaries.daemon] + daemonArguments
        return try ChildProcess(
            command[0], Array(command.dropFirst()),
            environment: ProcessRunner.environment(Binaries.backtraceEnvironment.merging(environment) { _, given in given }),
            stdout: .file(log), stderr: .file(log))
    }

    func waitForSocket(timeout: Double = 20) throws {
        do {
            try waitUntil("simplylockd to answer on \(root.socketPath)", timeout: timeout) {
                if let status = process.poll() { throw TestFailure("simplylockd exited with \(status)") }
                return try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "status"], timeout: 10).status == 0
            }
        } catch {
            throw TestFailure("\(error)\ndaemon log:\n\(log())")
        }
    }

    /// Runs `lockctl --root ROOT ARGS…`.
    @discardableResult
    func lockctl(_ arguments: String..., environment: [String: String] = [:]) throws -> CommandResult {
        try lockctl(arguments, environment: environment)
    }

    @discardableResult
    func lockctl(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try ProcessRunner.run(Binaries.lockctl, ["--root", root.path] + arguments, environment: environment)
    }

    /// Runs `lockctl … --json` and decodes its output as the API's wire type `type`. Decoding
    /// with the API's own types (and decoder) is itself a check: the test fails if the CLI's
    /// JSON lacks a field the type requires or gives one the wrong type.
    func decode<T: Decodable>(_ type: T.Type, _ arguments: String...) throws -> T {
        let result = try lockctl(arguments + ["--json"])
        guard result.status == 0 else { throw TestFailure("lockctl \(arguments) --json: \(result)") }
        return try result.decode(type)
    }

    /// A typed client on the scratch root's socket, for tests that talk to the API directly.
    var client: LockClient { LockClient(socketPath: root.socketPath) }

    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Stops with SIGTERM and waits; returns the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        process.send(SIGTERM)
        guard let status = process.wait(timeout: 15) else { throw TestFailure("simplylockd did not stop on SIGTERM") }
        return status
    }

    /// Kills with SIGKILL: no chance to clean up.
    func kill9() throws {
        process.send(SIGKILL)
        guard process.wait(timeout: 10) != nil else { throw TestFailure("simplylockd did not die on SIGKILL") }
    }

    /// Starts the daemon again on the same root.
    func restart(environment: [String: String] = [:]) throws {
        process = try DaemonProcess.launch(root: root, arguments: extraArguments, environment: environment, wrapper: wrapper, log: logPath)
        try waitForSocket()
    }

    /// The daemon's pid.
    var pid: pid_t { process.pid }
}

extension CommandResult {
    /// Decodes this command's standard output as the API's wire type `type`, whatever its exit
    /// status (`lockctl check` answers with JSON and a non-zero status when a name is blocked).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try API.makeDecoder().decode(type, from: Data(stdout.utf8))
        } catch {
            throw TestFailure("the output is not a \(type): \(error)\n\(self)")
        }
    }
}

extension EnforcerReport.Value {
    /// The number, if the value is one (`restores`, counts).
    var number: Double? { if case .number(let number) = self { number } else { nil } }

    /// The text, if the value is text (paths, modes).
    var text: String? { if case .text(let text) = self { text } else { nil } }
}

/// What `lockctl start` and `lockctl stop` print with `--json`: the API's sessions, grouped by
/// what became of them (a shape of lockctl's own; its parts are the API's `SessionInfo`).
struct SessionListAnswer: Decodable {
    var sessions: [SessionInfo]
    /// Only from stop: sessions that keep the profile blocked.
    var stillBlocked: [SessionInfo]?
    /// Only from `stop --all`: the blocks it may not stop.
    var left: [SessionInfo]?
}
