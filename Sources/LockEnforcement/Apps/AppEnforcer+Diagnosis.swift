import LockCore
import LockPlatform

// What `lockctl doctor` says about app blocking.
extension AppEnforcer {
    /// Which mechanism is active (or would be, at the next block) and why; whether running
    /// instances can be stopped.
    public func diagnose() async -> [Finding] {
        var findings: [Finding] = []
        let fix =
            "run simplylockd as root with CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_KILL and CAP_DAC_READ_SEARCH, outside a container (the shipped unit grants them)"
        if let statistics {
            switch statistics.mode {
            case .fanotify:
                findings.append(
                    Finding(
                        "apps", .ok,
                        "fanotify: execs of blocked apps are refused by the kernel (\(statistics.markedFilesystems.count) filesystems watched, \(statistics.denials) refused so far)"
                    ))
                // Said while a block runs: what fanotify marks cannot see at all.
                findings.append(
                    Finding(
                        "apps: not seen by fanotify", .warning,
                        "not covered: programs run from memory (memfd_create + fexecve) are not checked by fanotify; a copy of a strictly blocked program started from a filesystem mounted in another mount namespace (unshare -Urm) runs for about 1 s before a sweep stops it (later execs from there are refused); only a BPF LSM exec guard sees those at exec"
                    ))
            case .procConnector:
                findings.append(
                    Finding(
                        "apps", .warning,
                        "proc connector: blocked apps are killed just after they start, because fanotify cannot be used: \(fallbackReason ?? "not chosen")",
                        fix: fix))
            }
        } else {
            // No guard runs, so trying a fanotify group here never makes two in this process.
            switch ExecGuard.availability(preference: settings.preference) {
            case (.fanotify?, _):
                findings.append(Finding("apps", .ok, "idle; blocks will use fanotify (execs refused by the kernel)"))
            case (.procConnector?, let reason):
                findings.append(
                    Finding(
                        "apps", .warning,
                        "idle; blocks will use the proc connector (apps killed just after they start), because fanotify cannot be used: \(reason ?? "not chosen")",
                        fix: fix))
            case (nil, let reason):
                findings.append(Finding("apps", .problem, "app blocks cannot be enforced here: \(reason ?? "no mechanism")", fix: fix))
            }
        }
        let lacking = ProcessCapabilities.missing([ProcessCapabilities.sysPtrace, ProcessCapabilities.kill])
        if !lacking.isEmpty {
            findings.append(
                Finding(
                    "apps: running instances", .warning,
                    "without \(lacking.joined(separator: " and ")), blocked apps that other users already run (or start through an interpreter) are not stopped",
                    fix: fix))
        }
        if !ProcessCapabilities.has(ProcessCapabilities.dacReadSearch) {
            findings.append(
                Finding(
                    "apps: users' own apps", .warning,
                    "without CAP_DAC_READ_SEARCH, apps installed in private home directories (~/.local/share/applications, flatpak --user) are not found",
                    fix: fix))
        }
        if freezer == nil {
            findings.append(
                Finding("apps: freezing", .warning, "no cgroup v2 hierarchy: profiles with running = \"freeze\" terminate instead"))
        }
        return findings
    }
}
