import CLinux
import Foundation
import Glibc

/// A child process started with `posix_spawn` and reaped with `waitpid` on its own pid.
///
/// Foundation's `Process` is not used: its child monitoring sometimes never notices that a
/// child exited (seen here as zombies reported as running when several children of the test
/// process come and go at once), which turns into spurious timeouts. Children also start with
/// default signal dispositions and an empty signal mask, as systemd starts services.
public final class ChildProcess: @unchecked Sendable {
    /// Where a standard stream goes.
    public enum Output {
        case null
        case file(String)
        case pipe
    }

    public let pid: pid_t
    public let description: String
    private let lock = NSLock()
    private var status: Int32?
    private var readers: [(Int32, LockedData, Thread)] = []
    private let finished = DispatchGroup()

    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], stdout: Output = .null,
        stderr: Output = .null
    ) throws {
        description = ([executable] + arguments).joined(separator: " ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pipes: [(read: Int32, write: Int32)] = []
        for (fd, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard clinux_pipe_cloexec(&ends) == 0 else { throw TestFailure("pipe2 failed") }
                posix_spawn_file_actions_adddup2(&actions, ends[1], fd)
                pipes.append((ends[0], ends[1]))
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        for ends in pipes { close(ends.write) }
        guard result == 0 else {
            for ends in pipes { close(ends.read) }
            throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        for ends in pipes {
            let sink = LockedData()
            let group = finished
            group.enter()
            let thread = Thread {
                var collected = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(ends.read, $0.baseAddress, $0.count) }
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { break }
                    collected.append(contentsOf: buffer[0..<n])
                }
                close(ends.read)
                sink.set(collected)
                group.leave()
            }
            thread.start()
            readers.append((ends.read, sink, thread))
        }
    }

    /// The exit status (128 + signal for a signal), or nil while running. Reaps the child.
    public func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let signal = raw & 0x7f
        status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return status
    }

    public var isRunning: Bool { poll() == nil }

    /// Waits for the child to exit; nil after `timeout` seconds.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = poll() { return status }
            usleep(2_000)
        }
        return poll()
    }

    /// Everything the child wrote to its piped stdout and stderr (waits for them to close).
    public func output() -> (stdout: Data, stderr: Data) {
        _ = finished.wait(timeout: .now() + 10)
        let sinks = readers.map(\.1)
        return (sinks.first?.get() ?? Data(), sinks.count > 1 ? sinks[1].get() : Data())
    }

    public func send(_ signal: Int32) { kill(pid, signal) }

    deinit {
        if poll() == nil {
            kill(pid, SIGKILL)
            _ = wait(timeout: 10)
        }
    }
}
