import Foundation
import Glibc

/// The outcome of running a command to completion.
public struct CommandResult: CustomStringConvertible, Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs programs for the tests, capturing output.
public enum ProcessRunner {
    /// The test process's environment without what a service manager may have set, plus `extra`.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in [
            "SIMPLYLOCK_SOCKET", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
            "LISTEN_FDNAMES", "JOURNAL_STREAM", "INVOCATION_ID",
        ] {
            environment.removeValue(forKey: key)
        }
        environment.merge(extra) { _, new in new }
        return environment
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Double = 30
    ) throws -> CommandResult {
        let child = try ChildProcess(executable, arguments, environment: Self.environment(environment), stdout: .pipe, stderr: .pipe)
        guard let status = child.wait(timeout: timeout) else {
            child.send(SIGKILL)
            throw TestFailure("\(executable) \(arguments) did not finish within \(timeout)s")
        }
        let (out, err) = child.output()
        return CommandResult(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

public final class LockedData: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    public init() {}
    public func set(_ value: Data) {
        lock.lock()
        data = value
        lock.unlock()
    }
    public func get() -> Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}

/// Waits for a condition, checking often; fails after `timeout` seconds.
public func waitUntil(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw TestFailure("timed out after \(timeout)s waiting for: \(what)")
}
