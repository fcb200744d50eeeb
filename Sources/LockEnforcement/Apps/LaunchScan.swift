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
        var users: Set<UInt32> = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), pid > 0 else { continue }
            var status = stat()
            // Kernel threads and zombies have no executable.
            guard stat("\(proc)/\(pid)/exe", &status) == 0, identities.contains(FileIdentity(status)) else { continue }
            if let uid = uid(of: pid, proc: proc) { users.insert(uid) }
        }
        return users
    }

    /// The real uid of `pid` (`Uid:` in its status), or nil.
    static func uid(of pid: Int32, proc: String = "/proc") -> UInt32? {
        let fd = open("\(proc)/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }) else { return nil }
        return line.dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { UInt32($0) }
    }

    /// Whether an exec of counted app `identities` by process `pid` is a launch.
    static func isLaunch(pid: Int32, identities: Set<FileIdentity>, proc: String = "/proc") -> Bool {
        // An unknown user (the process vanished) is nobody's running app: count it.
        guard let uid = uid(of: pid, proc: proc) else { return true }
        return LaunchRule.isLaunch(by: uid, runningFor: users(running: identities, proc: proc))
    }
}
