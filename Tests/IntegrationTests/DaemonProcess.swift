import Foundation
import Glibc

/// A real `simplylockd` running under a test root.
final class DaemonProcess: @unchecked Sendable {
    let root: TestRoot
    private(set) var process: Process
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

    private static func launch(root: TestRoot, arguments: [String], environment: [String: String], wrapper: [String],
                               log: String) throws -> Process {
        let process = Process()
        let daemonArguments = ["--root", root.path, "--data-dir", Binaries.dataDirectory, "--log-level", "debug"] + arguments
        if let launcher = wrapper.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = Array(wrapper.dropFirst()) + [Binaries.daemon] + daemonArguments
        } else {
            process.executableURL = URL(fileURLWithPath: Binaries.daemon)
            process.arguments = daemonArguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "LISTEN_FDS")
        env.removeValue(forKey: "LISTEN_PID")
        env.merge(environment) { _, new in new }
        process.environment = env
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func waitForSocket(timeout: Double = 20) throws {
        try waitUntil("simplylockd to answer on \(root.socketPath)\n\(log())", timeout: timeout) {
            guard process.isRunning else { throw TestFailure("simplylockd exited with \(process.terminationStatus):\n\(log())") }
            return try lockctl("status").status == 0
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

    /// Decodes `lockctl … --json` output.
    func json(_ arguments: String...) throws -> [String: Any] {
        let result = try lockctl(arguments + ["--json"])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw TestFailure("lockctl \(arguments) --json: \(result)")
        }
        return object
    }

    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Stops with SIGTERM and waits; returns the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        try waitUntil("simplylockd to stop", timeout: 15) { !process.isRunning }
        return process.terminationStatus
    }

    /// Kills with SIGKILL: no chance to clean up.
    func kill9() throws {
        kill(process.processIdentifier, SIGKILL)
        try waitUntil("simplylockd to die", timeout: 10) { !process.isRunning }
    }

    /// Starts the daemon again on the same root.
    func restart(environment: [String: String] = [:]) throws {
        process = try DaemonProcess.launch(root: root, arguments: extraArguments, environment: environment, wrapper: wrapper, log: logPath)
        try waitForSocket()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
