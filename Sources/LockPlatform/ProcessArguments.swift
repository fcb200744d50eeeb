import Foundation

/// The process's command-line arguments, without the program name.
///
/// `CommandLine.arguments` comes out empty under some preloaded libraries (libfaketime, started
/// straight from a shell): a daemon that then parsed nothing would fall back to `--root /` and
/// manage the machine's real files. The kernel's copy in /proc/self/cmdline is read instead.
public enum ProcessArguments {
    public static var current: [String] {
        if !CommandLine.arguments.isEmpty { return Array(CommandLine.arguments.dropFirst()) }
        guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return [] }
        let parts = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // The buffer ends with a NUL, which leaves one empty part after the last argument.
        return Array(parts.dropFirst().dropLast(parts.last == "" ? 1 : 0))
    }
}
