import Foundation

/// The outcome of running a command to completion.
struct CommandResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs programs for the tests, capturing output.
enum ProcessRunner {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    input: String? = nil, timeout: Double = 30) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SIMPLYLOCK_SOCKET")
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        let outData = LockedData(), errData = LockedData()
        let group = DispatchGroup()
        for (handle, sink) in [(out.fileHandleForReading, outData), (err.fileHandleForReading, errData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(handle.readDataToEndOfFile())
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(2_000) }
        if process.isRunning {
            process.terminate()
            throw TestFailure("\(executable) \(arguments) did not finish within \(timeout)s")
        }
        process.waitUntilExit()
        group.wait()
        return CommandResult(status: process.terminationStatus,
                             stdout: String(decoding: outData.get(), as: UTF8.self),
                             stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

final class LockedData: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}

/// Waits for a condition, checking often; fails after `timeout` seconds.
func waitUntil(_ what: String, timeout: Double = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw TestFailure("timed out after \(timeout)s waiting for: \(what)")
}
