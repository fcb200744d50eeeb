import Glibc
import LockCore
import LockPlatform

/// Processes running a blocked program, found by the (device, inode) of `/proc/PID/exe`, by
/// content for strict rules, and (for interpreters and the loader) by the blocked scripts and
/// binaries named on their command line (`python3 game.py`).
struct RunningProcesses {
    /// One process found.
    struct Match: Sendable, Equatable {
        var pid: Int32
        var rule: Int
        /// The identity of `/proc/PID/exe` when it was found, to make sure the pid still
        /// belongs to the same program when it is signalled.
        var executable: FileIdentity
    }

    /// Every process whose program is blocked by `rules`, except this one.
    static func matching(_ rules: ExecRules, hasher: ContentHasher, proc: String = "/proc") -> [Match] {
        guard !rules.isEmpty, let directory = opendir(proc) else { return [] }
        defer { closedir(directory) }
        let own = getpid()
        var matches: [Match] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(entry)
            guard let pid = Int32(name), pid > 1, pid != own else { continue }
            if let match = match(pid: pid, rules: rules, hasher: hasher, proc: proc) { matches.append(match) }
        }
        return matches
    }

    /// The rule process `pid` matches, if any.
    static func match(pid: Int32, rules: ExecRules, hasher: ContentHasher, proc: String = "/proc") -> Match? {
        let exe = "\(proc)/\(pid)/exe"
        var status = stat()
        // Kernel threads have no executable; a process that just exited has none either.
        guard stat(exe, &status) == 0 else { return nil }
        let identity = FileIdentity(status)
        if rules.blocked[identity] != nil || rules.needsContentCheck(status) {
            let fd = rules.blocked[identity] == nil ? open(exe, O_RDONLY | O_CLOEXEC) : -1
            defer { if fd >= 0 { close(fd) } }
            if let (rule, _) = rules.match(identity: identity, status: status, fd: fd >= 0 ? fd : nil, hasher: hasher) {
                return Match(pid: pid, rule: rule, executable: identity)
            }
        }
        guard rules.mayRunOthers(exe: exe) else { return nil }
        for argument in arguments(pid: pid, proc: proc).dropFirst() where !argument.hasPrefix("-") && !argument.isEmpty {
            let path = argument.hasPrefix("/") ? argument : "\(proc)/\(pid)/cwd/\(argument)"
            if let target = FileIdentity(path: path), let file = rules.blocked[target] {
                return Match(pid: pid, rule: file.rule, executable: identity)
            }
        }
        return nil
    }

    /// `/proc/PID/cmdline` split at NULs (at most 64 KiB read).
    static func arguments(pid: Int32, proc: String = "/proc") -> [String] {
        guard let bytes = ProcFile.bytes(pid, "cmdline", proc: proc, limit: 65_536), let last = bytes.last else { return [] }
        return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast(last == 0 ? 1 : 0)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// The parent of `pid` (`PPid:` in its status), or nil.
    static func parent(of pid: Int32, proc: String = "/proc") -> Int32? {
        guard let fields = ProcFile.statFields(pid, proc: proc), fields.count > 1 else { return nil }
        return Int32(fields[1])
    }
}
