import CLinux
import Foundation
import Glibc
import Synchronization

/// A thread that waits for a file descriptor to become readable and calls a handler, until
/// stopped. Timers (timerfd) and file watches (inotify) use it so that the daemon reacts to
/// kernel events immediately instead of polling.
public final class WakeupThread: Sendable {
    private let stopFD: Int32
    private let stopped = Mutex(false)

    /// Starts waiting on `fd`; `handler` runs on the thread each time the descriptor is
    /// readable and must drain it. The descriptor stays owned by the caller.
    public init(name: String, fd: Int32, handler: @escaping @Sendable () -> Void) {
        stopFD = eventfd(0, Int32(EFD_CLOEXEC))
        let stopFD = self.stopFD
        let thread = Thread {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                let n = poll(&fds, 2, -1)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if fds[1].revents != 0 { return }
                if fds[0].revents & Int16(POLLIN) != 0 { handler() }
                if fds[0].revents & Int16(POLLNVAL | POLLERR) != 0 { return }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Stops the thread (it finishes the handler call in progress, if any).
    public func stop() {
        let first = stopped.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = Glibc.write(stopFD, &one, 8)
    }

    deinit {
        stop()
        close(stopFD)
    }
}
