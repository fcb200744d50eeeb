import Foundation
import Glibc
import TestSupport
import Testing

/// A daemon run from the build folder finds the repository's shipped data (`config/`) on its own:
/// the daemon built by `swift build` is in `.build/<triple>/<configuration>/`, three levels under
/// the repository.
@Suite(
    "shipped data next to a development build",
    .enabled(
        if: Binaries.directory.hasPrefix(TestTools.repository + "/.build/"),
        "the binaries are not in this repository's .build folder (SIMPLYLOCK_BIN_DIR=\(Binaries.directory))"))
struct BuildDataDirectoryTests {
    @Test("without --data-dir or SIMPLYLOCK_DATA_DIR the system profiles are there")
    func systemProfilesWithoutDataDir() throws {
        let root = try TestRoot()
        var environment = ProcessRunner.environment()
        environment.removeValue(forKey: "SIMPLYLOCK_DATA_DIR")
        let daemon = try ChildProcess(
            Binaries.daemon, ["--root", root.path, "--enforcers", "hosts"], environment: environment, stdout: .null, stderr: .null)
        defer {
            daemon.send(SIGTERM)
            _ = daemon.wait(timeout: 10)
        }
        var listed = ""
        try waitUntil("the daemon to answer") {
            let result = try ProcessRunner.run(Binaries.lockctl, ["--root", root.path, "profiles", "list"])
            listed = result.stdout
            return result.status == 0
        }
        #expect(listed.contains("deep-work") && listed.contains("system"), "profiles list:\n\(listed)")
    }
}
