import CLinux
import Glibc
import LockPlatform

/// Signals processes through pidfds, after checking that the pid still runs the program it
/// was found running: between finding a process in /proc and signalling it, the pid may have
/// been reused by something else, which must never be killed by mistake.
enum ProcessSignaller {
    /// A pidfd for `pid`, if it still runs the executable `identity`.
    static func open(_ pid: Int32, expecting identity: FileIdentity) -> Int32? {
        let pidfd = clinux_pidfd_open(pid)
        guard pidfd >= 0 else { return nil }
        // The pidfd now holds on to one process; the check is about that process.
        guard FileIdentity(path: "/proc/\(pid)/exe") == identity else {
            close(pidfd)
            return nil
        }
        return pidfd
    }

    /// Sends `signal` to `pid` if it still runs `identity`. True when sent.
    static func signal(_ pid: Int32, _ signal: Int32, expecting identity: FileIdentity) -> Bool {
        guard let pidfd = open(pid, expecting: identity) else { return false }
        defer { close(pidfd) }
        return clinux_pidfd_send_signal(pidfd, signal) == 0
    }

    /// True when the process behind `pidfd` has exited.
    static func hasExited(_ pidfd: Int32) -> Bool {
        var descriptor = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
