import Glibc

/// User-writable filesystems mounted in mount namespaces other than the daemon's: a tmpfs an
/// ordinary user mounts after `unshare -Urm` is in no mount table the daemon reads, and a
/// fanotify mark needs a path to it. `/proc/PID/root` of a process in that namespace is one: a
/// filesystem mark put through `/proc/PID/root/MOUNTPOINT` covers the filesystem wherever it is
/// mounted (checked here: an exec in the other namespace is then refused).
///
/// Each namespace is read once per scan (through the first process found in it), by its
/// `/proc/PID/mountinfo`, with `UserWritableMounts`' rules; only mounts at or under `scope`
/// count, as for the daemon's own namespace.
public enum ForeignMounts {
    /// One filesystem found in another namespace.
    public struct Mount: Sendable, Equatable {
        /// A path to its mount point from here (`/proc/PID/root/POINT`).
        public var path: String
        /// Its device, from mountinfo (`st_dev` encoding): a mark is put only where the path
        /// still leads to this device, never on what lies under a mount that went away.
        public var device: UInt64
        /// Its mount id and device (`1234 0:41`): what tells a new tmpfs from one that went away
        /// and left it its device number.
        public var identity: String
    }

    /// The user-writable mounts of every other mount namespace now.
    public static func find(extra: [String], scope: [String], proc: String = "/proc") -> [Mount] {
        guard !scope.isEmpty, let directory = opendir(proc) else { return [] }
        defer { closedir(directory) }
        var status = stat()
        guard stat(proc + "/self/ns/mnt", &status) == 0 else { return [] }
        var seen: Set<UInt64> = [UInt64(status.st_ino)]
        var found: [Mount] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(entry)
            guard Int32(name) != nil, stat("\(proc)/\(name)/ns/mnt", &status) == 0, seen.insert(UInt64(status.st_ino)).inserted,
                let mountinfo = UserWritableMounts.readText("\(proc)/\(name)/mountinfo")
            else { continue }
            let root = "\(proc)/\(name)/root"
            for mount in UserWritableMounts.mounts(mountinfo: mountinfo, extra: extra, scope: scope, root: root) {
                found.append(Mount(path: root + mount.point, device: mount.device, identity: "\(mount.id) \(mount.device)"))
            }
        }
        return found
    }
}
