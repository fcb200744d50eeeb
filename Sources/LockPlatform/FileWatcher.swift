import CLinux
import Foundation
import Glibc
import Synchronization

/// Reports changes to one file: edits, replacement by rename, deletion and re-creation.
///
/// Watches the file's directory (to see it replaced or deleted) and the file itself (to see
/// writes to a bind-mounted file, whose directory entry never changes).
public final class FileWatcher: Sendable {
    private let fd: Int32
    private let thread: WakeupThread

    /// Starts watching `path`; `onChange` runs on a dedicated thread after each batch of
    /// events (including those caused by our own writes: callers compare before acting).
    /// Whatever stands at `path` is watched itself, never a symbolic link's target; mode and
    /// owner changes (IN_ATTRIB) count as changes.
    public init(path: String, onChange: @escaping @Sendable () -> Void) throws(SystemError) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SystemError("inotify_init", path) }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB)
        let fileMask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW)
        let directoryWatch = inotify_add_watch(fd, directory.isEmpty ? "." : directory, directoryMask)
        guard directoryWatch >= 0 else {
            close(fd)
            throw SystemError("inotify_add_watch", directory)
        }
        // The watch on the file itself follows the inode: after a replacement it must move to
        // the new one, and the old one's watch is dropped so that, say, a directory moved
        // aside does not keep waking us.
        let fileWatch = Mutex(inotify_add_watch(fd, path, fileMask))
        self.fd = fd
        thread = WakeupThread(name: "watch \(name)", fd: fd) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            var relevant = false
            let current = fileWatch.withLock { $0 }
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let (watch, mask, nameLength, eventName) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int, String) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let length = Int(event.len)
                        var text = ""
                        if length > 0 {
                            let start = offset + MemoryLayout<inotify_event>.size
                            let bytes = raw[start..<(start + length)].prefix { $0 != 0 }
                            text = String(decoding: bytes, as: UTF8.self)
                        }
                        return (event.wd, event.mask, length, text)
                    }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                    // The directory's events name the entry; the file's own events always count.
                    if watch == directoryWatch, eventName == name { relevant = true }
                    if watch == current, current >= 0 { relevant = true }
                    offset += MemoryLayout<inotify_event>.size + nameLength
                }
            }
            guard relevant else { return }
            // The file may be a new inode now (replaced by rename): watch whatever is there.
            let added = inotify_add_watch(fd, path, fileMask)
            fileWatch.withLock { watch in
                if watch >= 0, watch != added, watch != directoryWatch { inotify_rm_watch(fd, watch) }
                watch = added
            }
            onChange()
        }
    }

    /// Stops watching.
    public func stop() { thread.stop() }

    deinit {
        thread.stop()
        close(fd)
    }
}
