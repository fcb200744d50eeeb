import Glibc

/// The small files of a process under /proc (`stat`, `status`, `cmdline`, `comm`), each read
/// with one `read`: the kernel makes them whole at the first read, and these callers run on
/// the exec guard's paths, where a Foundation read per process costs too much.
public enum ProcFile {
    /// The first `limit` bytes of `proc/PID/name`; nil when the process (or the file) is gone.
    public static func bytes(_ pid: Int32, _ name: String, proc: String = "/proc", limit: Int = 4096) -> [UInt8]? {
        let fd = open("\(proc)/\(pid)/\(name)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// `/proc/PID/stat`'s fields after the command name, so that `fields[0]` is field 3 (the
    /// state) and field N is `fields[N - 3]`. The name may hold spaces and parentheses, so the
    /// split starts after the last ')'.
    public static func statFields(_ pid: Int32, proc: String = "/proc") -> [Substring]? {
        guard let bytes = bytes(pid, "stat", proc: proc) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The first value of line `key:` of `/proc/PID/status` (`Uid` gives the real uid).
    public static func status(_ pid: Int32, _ key: String, proc: String = "/proc") -> Substring? {
        guard let bytes = bytes(pid, "status", proc: proc) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let prefix = key + ":"
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return line.dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
    }
}
