import Foundation
import Glibc

/// Waits, without polling, for something to happen where a daemon's socket lives: an inotify
/// watch on the socket's directory (or, while that does not exist, on its nearest existing
/// ancestor) wakes when the daemon creates, replaces or removes its socket.
///
/// Set up the watch before trying to connect, then wait only if connecting failed: a socket
/// created in between is then still noticed.
final class SocketWatch {
    private let fd: Int32
    /// Whether the socket's own directory is watched (not an ancestor of it, while it is missing).
    let watchesTarget: Bool

    init(socketPath: String) throws {
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw CommandFailure(code: ExitCodes.failure, "inotify: \(String(cString: strerror(errno)))") }
        let target = (socketPath as NSString).deletingLastPathComponent
        var directory = target
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        while inotify_add_watch(fd, directory.isEmpty ? "/" : directory, mask) < 0 {
            guard errno == ENOENT, directory != "/", !directory.isEmpty else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw CommandFailure(code: ExitCodes.failure, "cannot watch \(directory): \(reason)")
            }
            directory = (directory as NSString).deletingLastPathComponent
        }
        watchesTarget = directory == target
    }

    deinit { close(fd) }

    /// Blocks until something changes there.
    func wait() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 || (n < 0 && errno != EINTR) { return }
        }
    }
}
