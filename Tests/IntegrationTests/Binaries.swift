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
    static var dataDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config").standardized.path
    }
}
