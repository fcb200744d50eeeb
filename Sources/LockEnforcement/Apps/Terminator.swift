import CLinux
import Foundation
import Glibc
import LockPlatform

/// Ends processes politely, then firmly: SIGTERM now, SIGKILL to whatever is still running
/// after the grace period. Waiting happens on a thread of its own (pidfds polled), never in
/// the caller.
enum Terminator {
    /// Sends SIGTERM to each process that still runs the program it was found running, and
    /// schedules SIGKILL. Returns the pids signalled.
    @discardableResult
    static func terminate(_ matches: [RunningProcesses.Match], grace: Duration) -> [Int32] {
        var pidfds: [(pid: Int32, fd: Int32)] = []
        for match in matches {
            guard let pidfd = ProcessSignaller.open(match.pid, expecting: match.executable) else { continue }
            if clinux_pidfd_send_signal(pidfd, SIGTERM) == 0 {
                pidfds.append((match.pid, pidfd))
            } else {
                close(pidfd)
            }
        }
        guard !pidfds.isEmpty else { return [] }
        let waiting = pidfds
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        let thread = Thread {
            let deadline = Date().addingTimeInterval(seconds)
            var remaining = waiting
            while !remaining.isEmpty, Date() < deadline {
                var fds = remaining.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                let milliseconds = Int32(max(1, min(250, deadline.timeIntervalSinceNow * 1000)))
                _ = poll(&fds, nfds_t(fds.count), milliseconds)
                var still: [(pid: Int32, fd: Int32)] = []
                for (index, entry) in remaining.enumerated() {
                    if fds[index].revents != 0 { close(entry.fd) } else { still.append(entry) }
                }
                remaining = still
            }
            for entry in remaining {
                _ = clinux_pidfd_send_signal(entry.fd, SIGKILL)
                close(entry.fd)
            }
        }
        thread.name = "terminate"
        thread.start()
        return pidfds.map(\.pid)
    }
}
