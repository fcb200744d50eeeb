import CLinux
import Foundation
import Glibc
import TestSupport
import Testing

/// A guard that stops answering (its process stopped with SIGSTOP) holds up execs on marked
/// filesystems for a bounded time only: its sentinel answers in its place, refusing what is
/// blocked (see `ExecSentinel`).
@Suite(
    .serialized,
    .enabled(
        if: ExecGuardHarness.fanotifyUnavailableReason == nil,
        Comment(rawValue: ExecGuardHarness.fanotifyUnavailableReason ?? "")))
struct StalledGuardTests {
    @Test func aStoppedGuardStallsExecsAFewSecondsAndStillRefusesBlockedOnes() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"], strict: true)
        let probe = try #require(harness.probe)
        let made = try harness.asUser("cp \(harness.apps)/game \(harness.home)/copy")
        try #require(made.status == 0, "\(made)")
        try Self.stop(probe)
        defer { probe.send(SIGCONT) }
        for (program, expected) in [("\(harness.apps)/game", 126), ("\(harness.home)/copy", 126), ("\(harness.apps)/other", 0)] {
            let started = Date()
            let run = try harness.asUser(program, timeout: 20)
            let waited = Date().timeIntervalSince(started)
            #expect(run.status == Int32(expected), "\(program): \(run)")
            #expect(waited < 5, "\(program) waited \(waited) s")
        }
        probe.send(SIGCONT)
        let report = try harness.report()
        #expect(Int(report.details["sentinelRefused"] ?? "0")! >= 2, "\(report.details)")
        #expect(try harness.asUser("\(harness.apps)/game").status == 126)
    }

    /// Stops every thread of `probe` (SIGSTOP takes effect as each is next scheduled).
    static func stop(_ probe: ChildProcess) throws {
        probe.send(SIGSTOP)
        try waitUntil("every thread of the probe is stopped") {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(probe.pid)/task")) ?? []
            return !tasks.isEmpty && tasks.allSatisfy { Cgroups.read("/proc/\(probe.pid)/task/\($0)/status").contains("State:\tT") }
        }
    }

    /// While the guard is stopped its sentinel refuses a blocked script to interpreters (by
    /// name, and a root-made copy by its size) but lets `cat` read it.
    @Test func aStoppedGuardLetsCatReadABlockedScriptButNoInterpreter() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["scriptgame", "pygame"])
        let shell = harness.apps + "/shellish"
        try #require(try harness.inside("cp /bin/dash \(shell)").status == 0)
        let probe = try #require(harness.probe)
        try Self.stop(probe)
        defer { probe.send(SIGCONT) }
        let started = Date()
        let cat = try harness.asUser("cat \(harness.apps)/game.sh", timeout: 20)
        #expect(cat.status == 0 && cat.stdout.contains("script game"), "\(cat)")
        #expect(Date().timeIntervalSince(started) < 5)
        var attempts = ["/bin/dash \(harness.apps)/game.sh", "\(shell) \(harness.apps)/game.sh"]
        if let python = ExecGuardHarness.python { attempts.append("\(python) \(harness.apps)/game.py") }
        for attempt in attempts {
            let run = try harness.asUser(attempt, timeout: 20)
            #expect(run.status != 0 && run.stderr.contains("not permitted") && !run.stdout.contains("game"), "\(attempt): \(run)")
        }
        probe.send(SIGCONT)
        let report = try harness.report()
        #expect(Int(report.details["sentinelRefused"] ?? "0")! >= attempts.count, "\(report.details)")
        #expect(Int(report.details["sentinelAllowed"] ?? "0")! >= 1, "\(report.details)")
    }
}

/// The sentinel's table past its 4 096 exact entries: the rest go into a filter that never
/// lets a blocked file through (the C code the sentinel runs, on a table of the test's own).
@Suite struct SentinelTableTests {
    @Test func everyBlockedFileIsRefusedPastTheExactTable() throws {
        let table = UnsafeMutablePointer<clinux_sentinel_table>.allocate(capacity: 1)
        defer { table.deallocate() }
        memset(table, 0, MemoryLayout<clinux_sentinel_table>.size)
        let count = 20_000
        let files = (0..<count).flatMap { [UInt64(0x801), UInt64(1_000_000 + $0 * 7)] }
        clinux_sentinel_update(table, 0, -1, [], 0, files, UInt32(count))
        #expect(table.pointee.file_count == UInt32(CLINUX_SENTINEL_FILES))
        #expect(table.pointee.filtered == UInt32(count - Int(CLINUX_SENTINEL_FILES)))
        func refuses(_ device: UInt64, _ inode: UInt64) -> Bool {
            var status = stat()
            status.st_dev = __dev_t(device)
            status.st_ino = __ino_t(inode)
            status.st_mode = S_IFREG | 0o755
            return clinux_sentinel_refuses_exec(table, &status) == 1
        }
        #expect((0..<count).allSatisfy { refuses(0x801, UInt64(1_000_000 + $0 * 7)) })
        // Others are refused only now and then (a filter of 2^20 bits, three per file).
        let falseRefusals = (0..<100_000).filter { refuses(0x802, UInt64($0)) }.count
        #expect(falseRefusals < 100, "\(falseRefusals) of 100 000 unblocked files refused")
        // A smaller set again: the filter is emptied.
        clinux_sentinel_update(table, 0, -1, [], 0, Array(files.prefix(2)), 1)
        #expect(table.pointee.filtered == 0)
        #expect(refuses(0x801, 1_000_000) && !refuses(0x801, 1_000_007))
    }
}
