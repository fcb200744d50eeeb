import CLinux
import Glibc

/// The inode flags `chattr` sets that keep even root from replacing or rewriting a file.
public struct InodeFlags: Sendable, Equatable {
    /// `chattr +i`: no change, rename, link or removal, by anyone.
    public var immutable: Bool
    /// `chattr +a`: only appending.
    public var appendOnly: Bool

    /// The flags of `path` (a link followed), or nil when they cannot be read (no such file,
    /// or a filesystem without them).
    public static func of(_ path: String) -> InodeFlags? {
        var immutable: Int32 = 0
        var appendOnly: Int32 = 0
        guard clinux_inode_flags(path, &immutable, &appendOnly) == 0 else { return nil }
        return InodeFlags(immutable: immutable != 0, appendOnly: appendOnly != 0)
    }
}
