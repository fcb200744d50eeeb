import Glibc
import LockCore
import LockPlatform

/// Who runs a counted app now, to tell a launch from an exec within a running app
/// (`CountedApp`, `LaunchRule`): the users of the processes whose `/proc/PID/exe` is one of
/// the app's programs, by (device, inode).
enum LaunchScan {
    /// The real uids of the processes running one of `identities`.
    static func users(running identities: Set<FileIdentity>, proc: String = "/proc") -> Set<UInt32> {
        guard !identities.isEmpty, let directory = opendir(proc) else { return [] }
        defer { closedir(directory) }
        let procFD = dirfd(directory)
        var users: Set<UInt32> = []
        // `PID/exe` relative to /proc, built in one buffer: a launch waits for this scan, and
        // a string per process made it cost about a millisecond (debug build, 150 processes).
        var path = [CChar](repeating: 0, count: 32)
        let suffix = Array("/exe".utf8CString)
        var status = stat()
        while let entry = readdir(directory) {
            let length = DirectoryEntry.withName(entry) { name -> Int in
                guard name.count <= 20 else { return 0 }
                for (index, byte) in name.enumerated() {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return 0 }
                    path[index] = CChar(bitPattern: byte)
                }
                return name.count
            }
            guard length > 0 else { continue }
            for (index, byte) in suffix.enumerated() { path[length + index] = byte }
            // Kernel threads and zombies have no executable.
            guard fstatat(procFD, path, &status, 0) == 0, identities.contains(FileIdentity(status)) else { continue }
            path[length] = 0
            if let pid = Int32(String(cString: path)), let uid = uid(of: pid, proc: proc) { users.insert(uid) }
        }
        return users
    }

    /// Whether process `pid` runs one of `identities` itself (the app execing a helper or itself).
    static func runs(_ pid: Int32, _ identities: Set<FileIdentity>, proc: String = "/proc") -> Bool {
        var status = stat()
        return stat("\(proc)/\(pid)/exe", &status) == 0 && identities.contains(FileIdentity(status))
    }

    /// The real uid of `pid` (`Uid:` in its status), or nil.
    static func uid(of pid: Int32, proc: String = "/proc") -> UInt32? {
        ProcFile.status(pid, "Uid", proc: proc).flatMap { UInt32($0) }
    }

    /// Whether an exec of counted app `identities` by process `pid` is a launch.
    static func isLaunch(pid: Int32, identities: Set<FileIdentity>, proc: String = "/proc") -> Bool {
        // An unknown user (the process vanished) is nobody's running app: count it.
        guard let uid = uid(of: pid, proc: proc) else { return true }
        return LaunchRule.isLaunch(by: uid, runningFor: users(running: identities, proc: proc))
    }
}
