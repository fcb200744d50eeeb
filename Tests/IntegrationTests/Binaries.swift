import Foundation

/// Where the built `simplylockd` and `lockctl` are: next to the test bundle (SwiftPM puts
/// products and tests in the same directory), or `$SIMPLYLOCK_BIN_DIR`.
enum Binaries {
    static let directory: String = {
        if let explicit = ProcessInfo.processInfo.environment["SIMPLYLOCK_BIN_DIR"] { return explicit }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // The test binary may sit inside an .xctest bundle directory.
        while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("simplylockd").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory.path
    }()

    static var daemon: String { directory + "/simplylockd" }
    static var lockctl: String { directory + "/lockctl" }
    /// Makes a crashing daemon print where it crashed into its log. The release daemon links the
    /// Swift runtime statically and finds no backtracer by itself: a start-up SIGSEGV that
    /// failed one CI run in three left an empty log until the path was given. Only the daemon
    /// gets it: the fully static lockctl aborts at start when asked to backtrace.
    static let backtraceEnvironment: [String: String] = {
        let toolchains = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
            URL(fileURLWithPath: String($0)).appendingPathComponent("swift").resolvingSymlinksInPath()
        }
        for swift in toolchains where FileManager.default.isExecutableFile(atPath: swift.path) {
            let backtracer = swift.deletingLastPathComponent().appendingPathComponent("../libexec/swift/linux/swift-backtrace-static")
                .standardized.path
            if FileManager.default.isExecutableFile(atPath: backtracer) {
                return ["SWIFT_BACKTRACE": "enable=yes,interactive=no,swift-backtrace=\(backtracer)"]
            }
        }
        return [:]
    }()

    static var dataDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config").standardized.path
    }
}
