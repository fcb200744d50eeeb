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
        guard let fields = ProcFile.statFields(pid, proc: proc), fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
