import Glibc
import LockCore
import LockPlatform

/// Which apps have programs running, found exactly as the app enforcer finds the instances
/// it stops (`RunningProcesses`): by the identity of `/proc/PID/exe`, and by the script an
/// interpreter runs. The usage meter asks; it never signals anything.
public enum RunningApps {
    /// For each rule (app) with a process running, the earliest start of those processes on
    /// the boot clock (`/proc/PID/stat` field 22, which counts suspended time since Linux 5.3).
    public static func scan(_ rules: ExecRules, hasher: ContentHasher, proc: String = "/proc") -> [Int: BootTime] {
        var earliest: [Int: BootTime] = [:]
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for match in RunningProcesses.matching(rules, hasher: hasher, proc: proc) {
            let started =
                startTicks(pid: match.pid, proc: proc).map { BootTime(seconds: Double($0) / ticks) } ?? BootTime(nanoseconds: .max)
            earliest[match.rule] = min(earliest[match.rule] ?? started, started)
        }
        return earliest
    }

    /// Field 22 of `/proc/PID/stat`: when the process started, in clock ticks since boot.
    static func startTicks(pid: Int32, proc: String) -> UInt64? {
        let fd = open("\(proc)/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // `pid (comm) state …`: comm may hold spaces and parentheses, so count after the last ')'.
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Field 3 (state) is fields[0], so field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
