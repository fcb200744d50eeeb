import Foundation
import TestSupport
import Testing

/// The CLI stays small: it never links the daemon's libraries. ICU, SQLite, libnftables and
/// libsystemd appear only in the daemon (Foundation's own private ICU copy aside).
@Suite struct LayeringTests {
    static let lddAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd")

    @Test(.enabled(if: lddAvailable, "ldd is not installed"))
    func lockctlLinksNoneOfTheDaemonsLibraries() throws {
        let lockctl = try ProcessRunner.run("/usr/bin/ldd", [Binaries.lockctl])
        try #require(lockctl.status == 0, "\(lockctl)")
        for library in ["libicuuc", "libsqlite3", "libnftables", "libsystemd"] {
            #expect(!lockctl.stdout.contains(library), "lockctl links \(library):\n\(lockctl.stdout)")
        }
        // The check can fail: the daemon does link ICU for domain names.
        let daemon = try ProcessRunner.run("/usr/bin/ldd", [Binaries.daemon])
        #expect(daemon.stdout.contains("libicuuc"), "\(daemon.stdout)")
    }
}
