import Foundation
import CLinux
import Glibc

/// Reads and replaces files so that readers only ever see the old or the new content.
public enum AtomicFile {
    /// How a file was written.
    public enum Method: String, Sendable {
        /// A temporary file renamed over the old one: atomic.
        case renamed
        /// Overwritten in place, because the path cannot be replaced (a bind-mounted file).
        case inPlace
        /// Nothing to do: the file already had this content.
        case unchanged
    }

    /// The file's bytes, or nil when it does not exist.
    public static func read(_ path: String) throws(SystemError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("open", path)
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path)
            }
            if n == 0 { break }
            result += buffer[0..<n]
        }
        return result
    }

    /// Replaces `path` with `bytes`: a temporary file in the same directory, flushed, renamed
    /// over the old one, and the directory flushed, so a crash leaves the old or the new file,
    /// never a mix. The old file's owner and mode are kept (`defaultMode` for a new file).
    /// When renaming is impossible because the path is a mount point (a bind-mounted
    /// /etc/hosts in a container), falls back to a careful in-place write if allowed.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String, defaultMode: mode_t = 0o644,
                             inPlaceFallback: Bool = false) throws(SystemError) -> Method {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        var old = stat()
        let exists = stat(path, &old) == 0

        var template = Array("\(directory.isEmpty ? "." : directory)/.\(base).simplylock-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { clinux_mkostemp($0.baseAddress!, O_CLOEXEC) }
        if fd < 0 {
            if inPlaceFallback, exists { return try writeInPlace(bytes, to: path) }
            throw SystemError("create temporary file in", directory)
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var keep = false
        defer {
            close(fd)
            if !keep { unlink(temporary) }
        }
        try writeAll(fd, bytes, path: temporary)
        fchmod(fd, exists ? old.st_mode & 0o7777 : defaultMode)
        if exists, getuid() == 0 { fchown(fd, old.st_uid, old.st_gid) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", temporary) }
        if rename(temporary, path) != 0 {
            let code = errno
            if inPlaceFallback, exists, code == EBUSY || code == EXDEV || code == EPERM {
                return try writeInPlace(bytes, to: path)
            }
            throw SystemError("rename", path, errno: code)
        }
        keep = true
        syncDirectory(directory)
        return .renamed
    }

    /// Overwrites the file's content without replacing the file: new bytes first, then the
    /// length, then a flush. Used only where the path cannot be replaced.
    static func writeInPlace(_ bytes: [UInt8], to path: String) throws(SystemError) -> Method {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
        guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw SystemError("truncate", path) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", path) }
        return .inPlace
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("write", path)
            }
            offset += n
        }
    }

    /// Flushes a directory so that a rename in it survives a crash.
    public static func syncDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Creates a directory and its parents (like `mkdir -p`), with `mode` for new ones.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0, errno != EEXIST { throw SystemError("mkdir", current) }
        }
    }
}
