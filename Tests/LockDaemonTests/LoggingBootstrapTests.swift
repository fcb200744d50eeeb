import Foundation
import LockDaemon
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Journal or stderr (JOURNAL_STREAM)")
struct LoggingBootstrapTests {
    @Test(
        "Only a well-formed, matching device:inode selects the journal",
        arguments: [
            (String?.none, LogDestination.stderr),
            ("2049:12345", .journal),
            ("2049:12346", .stderr),
            ("2050:12345", .stderr),
            ("2049", .stderr),
            ("2049:12345:1", .stderr),
            ("x:y", .stderr),
            ("", .stderr),
        ])
    func destination(variable: String?, expected: LogDestination) {
        #expect(LoggingBootstrap.destination(journalStream: variable, stderrDevice: 2049, stderrInode: 12345) == expected)
    }

    @Test("Without journald's socket a matching JOURNAL_STREAM still means stderr (entries would vanish)")
    func socketMissing() {
        #expect(
            LoggingBootstrap.destination(
                journalStream: "2049:12345", stderrDevice: 2049, stderrInode: 12345,
                journalSocketExists: false) == .stderr)
    }
}
