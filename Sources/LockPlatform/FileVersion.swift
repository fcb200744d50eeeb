import Glibc

/// What changes whenever a file's content, owner or mode may have: identity, size, mode,
/// owner and the change and modification times to the nanosecond. Equal versions let a
/// reload reuse what it read before.
public struct FileVersion: Sendable, Hashable {
    /// The file's identity.
    public var identity: FileIdentity
    /// `st_size`, `st_mode`, `st_uid`, `st_gid`.
    public var size: Int64, mode: UInt32, owner: UInt32, group: UInt32
    /// `st_mtim` and `st_ctim`, in nanoseconds.
    public var modified: Int64, changed: Int64

    /// The version of the file `path` names, without following a final symbolic link; nil
    /// when it cannot be examined.
    public init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        identity = FileIdentity(status)
        size = Int64(status.st_size)
        mode = status.st_mode
        owner = status.st_uid
        group = status.st_gid
        modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
    }
}
