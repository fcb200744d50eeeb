import Foundation

/// Finds the shipped data (`services.toml`, `profiles/`): next to an installed binary
/// (`PREFIX/bin/../share/simplylock`), in the source tree for a development build
/// (`.build/…/debug/../../../config`), or in the system locations.
enum DataDirectory {
    static func locate(explicit: String?) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessInfo.processInfo.environment["SIMPLYLOCK_DATA_DIR"] { return fromEnvironment }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let binDirectory = executable.deletingLastPathComponent()
        let candidates = [
            binDirectory.appendingPathComponent("../share/simplylock").standardized.path,
            binDirectory.appendingPathComponent("../../../config").standardized.path,
            "/usr/local/share/simplylock",
            "/usr/share/simplylock",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/services.toml") } ?? "/usr/share/simplylock"
    }
}
