import Glibc

/// The filesystems an ordinary user can put a program on, found in the mount table as it is
/// now rather than from a fixed list: a strict block watches them for copies of blocked
/// programs.
///
/// A mount counts when its root directory is writable by others (`/tmp`, `/dev/shm`,
/// `/run/lock` on most systems), owned by someone other than root (a user's FUSE mount, a
/// tmpfs mounted in a user namespace and bind-mounted out), when it is a FUSE filesystem
/// (AppImages, sshfs, portals), when it lies under a place desktops mount removable media for
/// users (`/media`, `/run/media`, `/mnt`), or when it lies under one of `extra` (`/home`, …).
/// Kernel filesystems that cannot hold a program (`proc`, `sysfs`, `cgroup2`, …) never count.
public enum UserWritableMounts {
    /// Filesystem types that never hold a user's program.
    static let kernelTypes: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs", "pstore", "bpf",
        "configfs", "fusectl", "binfmt_misc", "autofs", "efivarfs", "nsfs", "hugetlbfs", "rpc_pipefs", "selinuxfs",
    ]

    /// Where desktops mount removable media for users.
    static let mediaDirectories = ["/media", "/run/media", "/mnt"]

    /// Mount points of `mountinfo` (the text of `/proc/self/mountinfo`) that users can write
    /// to, limited to those at or under one of `scope` (tests give their own directory).
    public static func find(mountinfo: String, extra: [String], scope: [String] = ["/"]) -> [String] {
        mounts(mountinfo: mountinfo, extra: extra, scope: scope).map(\.point)
    }

    /// The same, with each mount's id and device (`st_dev`, from mountinfo's `major:minor`). Root
    /// directories are examined at `root` + the mount point (`/proc/PID/root` for a mount
    /// namespace of another process).
    public static func mounts(mountinfo: String, extra: [String], scope: [String] = ["/"], root: String = "")
        -> [(point: String, device: UInt64, id: Substring)]
    {
        var found: [(point: String, device: UInt64, id: Substring)] = []
        for line in mountinfo.split(separator: "\n") {
            guard let (point, type) = parse(line), within(point, scope), !kernelTypes.contains(type), let device = device(line)
            else { continue }
            if type == "fuse" || type.hasPrefix("fuse.") || (mediaDirectories + extra).contains(where: { within(point, [$0]) }) {
                found.append((point, device, id(line)))
                continue
            }
            var status = stat()
            guard stat(root + point, &status) == 0 else { continue }
            if status.st_uid != 0 || status.st_mode & S_IWOTH != 0 { found.append((point, device, id(line))) }
        }
        return found
    }

    /// The mount id of one mountinfo line (its first field).
    static func id(_ line: Substring) -> Substring { line.prefix { $0 != " " } }

    /// The device of one mountinfo line (`major:minor`, the third field) as `st_dev` encodes it.
    static func device(_ line: Substring) -> UInt64? {
        let fields = line.split(separator: " ", maxSplits: 3)
        guard fields.count > 2 else { return nil }
        let numbers = fields[2].split(separator: ":")
        guard numbers.count == 2, let major = UInt64(numbers[0]), let minor = UInt64(numbers[1]) else { return nil }
        return (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & ~0xff) << 12) | ((major & ~0xfff) << 32)
    }

    /// The mount table now.
    public static func current(extra: [String], scope: [String] = ["/"]) -> [String] {
        guard let text = readText("/proc/self/mountinfo") else { return [] }
        return find(mountinfo: text, extra: extra, scope: scope)
    }

    /// True when `path` is one of `prefixes` or below one.
    static func within(_ path: String, _ prefixes: [String]) -> Bool {
        prefixes.contains { prefix in
            prefix == "/" || path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/")
        }
    }

    /// Mount point and filesystem type of one mountinfo line.
    static func parse(_ line: Substring) -> (String, String)? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count > 6, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else { return nil }
        return (unescape(fields[4]), String(fields[separator + 1]))
    }

    /// mountinfo writes space, tab, newline and backslash as octal escapes (`\040`).
    static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
