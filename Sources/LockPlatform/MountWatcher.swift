import CLinux
import Foundation
import Glibc
import Synchronization

/// Reports changes to the mount table: the kernel flags `/proc/self/mountinfo` with POLLPRI
/// whenever a filesystem is mounted or unmounted in this mount namespace.
public final class MountWatcher: Sendable {
    private struct Descriptors {
        var mountinfo: Int32
        var stop: Int32
        var closed = false
    }

    /// Shared with the thread, which owns the descriptors.
    private final class Shared: Sendable {
        let descriptors: Mutex<Descriptors>
        init(_ descriptors: Descriptors) { self.descriptors = Mutex(descriptors) }
    }

    private let shared: Shared

    /// Starts watching; `onChange` runs on a dedicated thread after each change.
    public init(mountinfo: String = "/proc/self/mountinfo", onChange: @escaping @Sendable () -> Void) throws(SystemError) {
        let fd = open(mountinfo, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", mountinfo) }
        let stopFD = eventfd(0, Int32(EFD_CLOEXEC))
        let shared = Shared(Descriptors(mountinfo: fd, stop: stopFD))
        self.shared = shared
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var fds = [
                pollfd(fd: fd, events: Int16(POLLPRI), revents: 0),
                pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
            ]
            // The change flag is cleared by reading the file to its end.
            func drain() {
                _ = lseek(fd, 0, SEEK_SET)
                while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            }
            // The thread owns the descriptors: it closes them when it ends, under the lock
            // `stop` takes, so `stop` never writes to a descriptor number reused elsewhere.
            defer {
                shared.descriptors.withLock { state in
                    state.closed = true
                    close(state.mountinfo)
                    close(state.stop)
                }
            }
            drain()
            while true {
                let ready = poll(&fds, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if fds[1].revents != 0 { return }
                if fds[0].revents & Int16(POLLPRI | POLLERR) != 0 {
                    drain()
                    onChange()
                }
            }
        }
        thread.name = "mount-watch"
        thread.start()
    }

    /// Stops watching (the thread ends after the change it may be handling).
    public func stop() {
        shared.descriptors.withLock { state in
            guard !state.closed else { return }
            var one: UInt64 = 1
            _ = write(state.stop, &one, 8)
        }
    }

    deinit { stop() }
}
