import Glibc
import LockPlatform

/// An exclusive lock on the state directory, so two daemons never manage the same state. The
/// kernel releases it when the process dies, however it dies.
final class InstanceLock {
    private let fd: Int32

    init(path: String) throws(DaemonStartError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system(SystemError("open", path)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .alreadyRunning(path)
        }
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        self.fd = fd
    }

    deinit { close(fd) }
}

/// Why the daemon could not start.
enum DaemonStartError: Error, CustomStringConvertible {
    case alreadyRunning(String)
    case system(SystemError)
    case other(String)

    var description: String {
        switch self {
        case .alreadyRunning(let path): "another simplylockd is already running with this state directory (lock \(path) is held)"
        case .system(let error): error.description
        case .other(let message): message
        }
    }
}

extension KernelTimer: DeadlineTimer {}
