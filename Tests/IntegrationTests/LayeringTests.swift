import Foundation
import TestSupport
import Testing

/// The CLI stays small: it never links the daemon's libraries. ICU, SQLite, libnftables and
/// libsystemd appear only in the daemon (Foundation's own private ICU copy aside).
@Suite struct LayeringTests {
    static let lddAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd")

    /// Entry points of the daemon's libraries, for a static lockctl (the release build), which
    /// ldd cannot list. The system ICU's names carry its version; Foundation's copy has a prefix.
    static let libraryEntryPoints = [" sqlite3_open_v2", " nft_ctx_new", " sd_notify", " uidna_openUTS46_"]

    @Test(.enabled(if: lddAvailable, "ldd is not installed"))
    func lockctlLinksNoneOfTheDaemonsLibraries() throws {
        let lockctl = try ProcessRunner.run("/usr/bin/ldd", [Binaries.lockctl])
        if lockctl.status != 0, (lockctl.stdout + lockctl.stderr).contains("not a dynamic executable") {
            let symbols = try ProcessRunner.run("/usr/bin/nm", [Binaries.lockctl])
            try #require(symbols.status == 0, "\(symbols)")
            for entry in Self.libraryEntryPoints {
                #expect(!symbols.stdout.contains(entry), "the static lockctl holds\(entry)")
            }
            // The check can fail: the daemon refers to them all.
            let daemon = try ProcessRunner.run("/usr/bin/nm", [Binaries.daemon])
            for entry in Self.libraryEntryPoints { #expect(daemon.stdout.contains(entry), "\(entry)") }
            return
        }
        try #require(lockctl.status == 0, "\(lockctl)")
        for library in ["libicuuc", "libsqlite3", "libnftables", "libsystemd"] {
            #expect(!lockctl.stdout.contains(library), "lockctl links \(library):\n\(lockctl.stdout)")
        }
        // The check can fail: the daemon does link ICU for domain names.
        let daemon = try ProcessRunner.run("/usr/bin/ldd", [Binaries.daemon])
        #expect(daemon.stdout.contains("libicuuc"), "\(daemon.stdout)")
    }

    /// `lockctl ui` runs the UI's server, a program of its own: lockctl carries no event loop,
    /// and the server carries neither the daemon's libraries nor its code.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nm"), "nm is not installed"))
    func uiServerIsItsOwnProgram() throws {
        let server = Binaries.directory + "/simplylock-ui"
        let symbols = try ProcessRunner.run("/usr/bin/nm", [server])
        try #require(symbols.status == 0, "\(symbols)")
        #expect(symbols.stdout.contains("NIOPosix"), "the check can fail: the server is built on SwiftNIO")
        // Swift symbols carry their module's name with its length: $s10LockDaemon…
        for entry in Self.libraryEntryPoints + ["10LockDaemon", "15LockEnforcement", "9LockStore", "4GRDB"] {
            #expect(!symbols.stdout.contains(entry), "simplylock-ui holds\(entry)")
        }
        let lockctl = try ProcessRunner.run("/usr/bin/nm", [Binaries.lockctl])
        #expect(lockctl.status == 0 && !lockctl.stdout.contains("NIOPosix"), "lockctl links SwiftNIO")
        if Self.lddAvailable {
            let libraries = try ProcessRunner.run("/usr/bin/ldd", [server]).stdout
            for library in ["libicuuc", "libsqlite3", "libnftables", "libsystemd"] {
                #expect(!libraries.contains(library), "simplylock-ui links \(library)")
            }
        }
    }
}
