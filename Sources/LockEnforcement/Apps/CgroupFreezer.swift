import Glibc
import LockPlatform

/// Freezes and thaws an app's cgroup with the cgroup v2 freezer (`cgroup.freeze`). Only a
/// scope of the app's own (`app-….scope`, as desktops and `systemd-run --scope` create them;
/// `snap.….scope`) is frozen, and only when every process in it runs a blocked program or
/// descends from one: freezing a terminal's scope because a game was started from it would
/// freeze the terminal too.
struct CgroupFreezer: Sendable {
    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified`
    /// on hybrid systems).
    let root: String

    /// The cgroup2 mount point in `mountinfo`, or nil when there is none.
    static func cgroup2Root(mountinfo: String = "/proc/self/mountinfo") -> String? {
        guard let bytes = try? AtomicFile.read(mountinfo) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            // `id parent major:minor root mountpoint options [optional…] - fstype source super`
            let parts = line.split(separator: " - ", maxSplits: 1)
            guard parts.count == 2, parts[1].split(separator: " ").first == "cgroup2" else { continue }
            let fields = parts[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    /// The app scope `pid` runs in (a path relative to `root`), or nil when its cgroup is not
    /// an app scope.
    func scope(of pid: Int32) -> String? {
        guard let bytes = try? AtomicFile.read("/proc/\(pid)/cgroup") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("0::") {
            let path = String(line.dropFirst(3))
            let last = path.split(separator: "/").last ?? ""
            guard (last.hasPrefix("app-") || last.hasPrefix("snap.")) && last.hasSuffix(".scope"), !path.contains("..") else {
                return nil
            }
            return path
        }
        return nil
    }

    /// Every process in `scope` and the cgroups below it.
    func processes(in scope: String) -> [Int32] {
        var pids: [Int32] = []
        var pending = [root + scope]
        while let directory = pending.popLast(), pids.count < 100_000 {
            if let bytes = try? AtomicFile.read(directory + "/cgroup.procs") {
                pids += String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
            }
            guard let handle = opendir(directory) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
                let name = DirectoryEntry.name(entry)
                if name != ".", name != ".." { pending.append(directory + "/" + name) }
            }
        }
        return pids
    }

    /// True when every process in `scope` is one of `blocked` or descends from one.
    func holdsOnly(_ blocked: Set<Int32>, scope: String) -> Bool {
        let members = processes(in: scope)
        guard !members.isEmpty else { return false }
        let inScope = Set(members)
        return members.allSatisfy { member in
            var current = member
            for _ in 0..<64 {
                if blocked.contains(current) { return true }
                guard let parent = RunningProcesses.parent(of: current), parent > 1, inScope.contains(parent) else { return false }
                current = parent
            }
            return false
        }
    }

    /// Writes `cgroup.freeze`.
    func setFrozen(_ frozen: Bool, scope: String) throws(SystemError) {
        let path = root + scope + "/cgroup.freeze"
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path) }
        defer { close(fd) }
        let value: [UInt8] = frozen ? [UInt8(ascii: "1")] : [UInt8(ascii: "0")]
        guard write(fd, value, 1) == 1 else { throw SystemError("write", path) }
    }

    /// True when the kernel reports the scope frozen (`frozen 1` in `cgroup.events`).
    func isFrozen(scope: String) -> Bool {
        guard let bytes = try? AtomicFile.read(root + scope + "/cgroup.events") else { return false }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").contains("frozen 1")
    }
}
