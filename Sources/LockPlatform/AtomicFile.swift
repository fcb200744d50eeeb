import CLinux
import Foundation
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
        return try readAll(fd, path: path)
    }

    private static func readAll(_ fd: Int32, path: String) throws(SystemError) -> [UInt8] {
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

    /// What stands at a path, looked at without following a symbolic link.
    public enum Entry: Sendable {
        /// Nothing (ENOENT).
        case missing
        /// A regular file: its bytes and its `stat`.
        case regular([UInt8], stat)
        /// A symbolic link (its target is not read).
        case symbolicLink
        /// A directory.
        case directory
        /// A FIFO, socket or device node (never opened: a FIFO would block the reader).
        case other(mode_t)
    }

    /// What stands at `path`, with the bytes when it is a regular file. Never follows a
    /// symbolic link and never opens anything but a regular file.
    public static func entry(at path: String) throws(SystemError) -> Entry {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw SystemError("stat", path)
        }
        switch status.st_mode & S_IFMT {
        case S_IFLNK: return .symbolicLink
        case S_IFDIR: return .directory
        case S_IFREG: break
        default: return .other(status.st_mode)
        }
        // O_NOFOLLOW and O_NONBLOCK: the path may have been swapped since lstat.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return .missing }
            if errno == ELOOP { return .symbolicLink }
            throw SystemError("open", path)
        }
        defer { close(fd) }
        guard fstat(fd, &status) == 0 else { throw SystemError("stat", path) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular(try readAll(fd, path: path), status)
        case S_IFDIR: return .directory
        default: return .other(status.st_mode)
        }
    }

    /// Renames `path` to `PATH.LABEL-YYYYMMDDTHHMMSSZ` (with `-2`, `-3`… if that exists) and
    /// returns the new path: for things that must get out of the way but not be destroyed.
    public static func moveAside(_ path: String, label: String, at date: Date = Date()) throws(SystemError) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        let base = "\(path).\(label)-\(stamp)"
        var status = stat()
        for attempt in 1...1000 {
            let target = attempt == 1 ? base : "\(base)-\(attempt)"
            guard lstat(target, &status) != 0, errno == ENOENT else { continue }
            guard rename(path, target) == 0 else { throw SystemError("rename", path) }
            syncDirectory((path as NSString).deletingLastPathComponent)
            return target
        }
        throw SystemError("rename", path, errno: EEXIST)
    }

    /// Removes the temporary files that `write` leaves behind when the process dies between
    /// creating and renaming them (`.NAME.simplylock-XXXXXX`) in `directory`: those for the
    /// file named `base`, or for any file when `base` is nil. Only regular files owned by this
    /// process's user whose names match the template exactly are removed, never links or
    /// directories. Returns the paths removed; a directory that cannot be listed yields none.
    @discardableResult
    public static func removeLeftovers(in directory: String, for base: String? = nil) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return [] }
        var removed: [String] = []
        for name in names where isTemporaryName(name, for: base) {
            let full = (directory.isEmpty ? "." : directory) + "/" + name
            var status = stat()
            guard lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else { continue }
            if unlink(full) == 0 { removed.append(full) }
        }
        return removed
    }

    /// The name of a temporary file for `base`, without the six characters mkostemp adds.
    static func temporaryPrefix(for base: String) -> String { ".\(base).simplylock-" }

    /// True when `name` is one of our temporary names: `.BASE.simplylock-` and six letters or
    /// digits (mkostemp's alphabet).
    static func isTemporaryName(_ name: String, for base: String?) -> Bool {
        let marker = ".simplylock-"
        let utf8 = Array(name.utf8)
        guard utf8.count >= 1 + 1 + marker.utf8.count + 6, utf8.first == UInt8(ascii: ".") else { return false }
        let random = utf8.suffix(6)
        guard random.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            return false
        }
        let stem = utf8.dropLast(6)
        guard stem.count > marker.utf8.count + 1, stem.suffix(marker.utf8.count).elementsEqual(marker.utf8) else { return false }
        guard let base else { return true }
        return stem.elementsEqual(temporaryPrefix(for: base).utf8)
    }

    /// The mode and owner a written file gets, whatever the file it replaces had.
    public struct Attributes: Sendable, Equatable {
        /// Permission bits.
        public var mode: mode_t
        /// Owner and group, or nil to leave them to whoever creates the file.
        public var owner: (user: uid_t, group: gid_t)?

        /// Creates attributes.
        public init(mode: mode_t, owner: (user: uid_t, group: gid_t)? = nil) {
            self.mode = mode
            self.owner = owner
        }

        /// True when `status` (from `stat`) has this mode and owner.
        public func match(_ status: stat) -> Bool {
            guard status.st_mode & 0o7777 == mode else { return false }
            guard let owner else { return true }
            return status.st_uid == owner.user && status.st_gid == owner.group
        }

        public static func == (a: Attributes, b: Attributes) -> Bool {
            a.mode == b.mode && a.owner?.user == b.owner?.user && a.owner?.group == b.owner?.group
        }
    }

    /// Replaces `path` with `bytes`: a temporary file in the same directory, flushed, renamed
    /// over the old one, and the directory flushed, so a crash leaves the old or the new file,
    /// never a mix. With `attributes`, the new file gets exactly that mode and owner;
    /// without, the old file's owner and mode are kept (`defaultMode` for a new file).
    /// Whatever stands at `path` is replaced, not followed: a symbolic link there is replaced
    /// by the new file and its target is left alone. A directory there is an error (EISDIR).
    /// When renaming is impossible because the path is a mount point (a bind-mounted
    /// /etc/hosts in a container), falls back to a careful in-place write if allowed.
    @discardableResult
    public static func write(
        _ bytes: [UInt8], to path: String, defaultMode: mode_t = 0o644, attributes: Attributes? = nil,
        inPlaceFallback: Bool = false
    ) throws(SystemError) -> Method {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        var old = stat()
        let exists = lstat(path, &old) == 0
        let oldIsRegular = exists && old.st_mode & S_IFMT == S_IFREG

        var template = Array("\(directory.isEmpty ? "." : directory)/\(temporaryPrefix(for: base))XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { clinux_mkostemp($0.baseAddress!, O_CLOEXEC) }
        if fd < 0 {
            if inPlaceFallback, oldIsRegular { return try writeInPlace(bytes, to: path, attributes: attributes) }
            throw SystemError("create temporary file in", directory)
        }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var keep = false
        defer {
            close(fd)
            if !keep { unlink(temporary) }
        }
        try writeAll(fd, bytes, path: temporary)
        if let attributes {
            fchmod(fd, attributes.mode)
            if let owner = attributes.owner { fchown(fd, owner.user, owner.group) }
        } else {
            fchmod(fd, oldIsRegular ? old.st_mode & 0o7777 : defaultMode)
            if oldIsRegular, getuid() == 0 { fchown(fd, old.st_uid, old.st_gid) }
        }
        guard fsync(fd) == 0 else { throw SystemError("fsync", temporary) }
        if rename(temporary, path) != 0 {
            let code = errno
            if inPlaceFallback, oldIsRegular, code == EBUSY || code == EXDEV || code == EPERM {
                return try writeInPlace(bytes, to: path, attributes: attributes)
            }
            throw SystemError("rename", path, errno: code)
        }
        keep = true
        syncDirectory(directory)
        return .renamed
    }

    /// Overwrites the file's content without replacing the file: new bytes first, then the
    /// length, then a flush. Used only where the path cannot be replaced; never follows a
    /// symbolic link.
    static func writeInPlace(_ bytes: [UInt8], to path: String, attributes: Attributes?) throws(SystemError) -> Method {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw SystemError("open", path) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw SystemError("write in place", path, errno: EINVAL) }
        try writeAll(fd, bytes, path: path)
        guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw SystemError("truncate", path) }
        if let attributes { try apply(attributes, fd: fd, status: status, path: path) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", path) }
        return .inPlace
    }

    /// Gives the regular file at `path` the mode and owner of `attributes`, in place (the
    /// inode stays, so this also works on a bind-mounted file). Never follows a symbolic link.
    public static func setAttributes(_ attributes: Attributes, of path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw SystemError("open", path) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw SystemError("chmod", path, errno: EINVAL) }
        try apply(attributes, fd: fd, status: status, path: path)
    }

    private static func apply(_ attributes: Attributes, fd: Int32, status: stat, path: String) throws(SystemError) {
        if let owner = attributes.owner, status.st_uid != owner.user || status.st_gid != owner.group {
            guard fchown(fd, owner.user, owner.group) == 0 else { throw SystemError("chown", path) }
        }
        // After chown, which clears set-id bits.
        guard fchmod(fd, attributes.mode) == 0 else { throw SystemError("chmod", path) }
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
