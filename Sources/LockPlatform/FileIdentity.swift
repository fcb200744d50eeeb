import Glibc

/// A file as the kernel knows it: device and inode. Paths differ inside sandboxes, through
/// bind mounts and hard links; this does not.
public struct FileIdentity: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// `st_dev`.
    public var device: UInt64
    /// `st_ino`.
    public var inode: UInt64

    /// Creates an identity from its numbers.
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of `status`.
    public init(_ status: stat) {
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// The file `path` names (symbolic links followed), or nil when it cannot be examined.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The file open on `fd`.
    public init?(fd: Int32) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        self.init(status)
    }

    public static func < (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
        (lhs.device, lhs.inode) < (rhs.device, rhs.inode)
    }

    /// `major:minor:inode`, as `/proc/PID/maps` writes it.
    public var description: String {
        // glibc's gnu_dev_major/minor encoding (the macros are not imported into Swift).
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        return "\(major):\(minor):\(inode)"
    }
}
