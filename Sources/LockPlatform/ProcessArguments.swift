import CLinux
import Foundation

/// The process's command-line arguments, without the program name.
///
/// Swift's `CommandLine.arguments` comes from /proc/self/cmdline on Linux: it is empty in a bare
/// chroot without /proc, and under some preloaded libraries (libfaketime, started straight from a
/// shell). A daemon that then parsed nothing would fall back to `--root /` and manage the
/// machine's real files, so the arguments glibc handed to the executable's initialisers come
/// first, and a caller that cannot run without its arguments uses `read`, which says when none
/// of the three sources answered.
public enum ProcessArguments {
    /// The arguments, or none when they cannot be read.
    public static var current: [String] { read ?? [] }

    /// The arguments, or nil when they cannot be read (no initialiser saw them, `CommandLine`
    /// is empty and /proc/self/cmdline cannot be read).
    public static var read: [String]? {
        let argc = clinux_start_argc()
        if argc >= 0, let argv = clinux_start_argv() {
            return (0..<Int(argc)).dropFirst().map { index in argv[index].map { String(cString: $0) } ?? "" }
        }
        if !CommandLine.arguments.isEmpty { return Array(CommandLine.arguments.dropFirst()) }
        guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return nil }
        let parts = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // The buffer ends with a NUL, which leaves one empty part after the last argument.
        return Array(parts.dropFirst().dropLast(parts.last == "" ? 1 : 0))
    }
}
