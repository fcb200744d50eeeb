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
        probe.send(SIGSTOP)
        defer { probe.send(SIGCONT) }
        try waitUntil("every thread of the probe is stopped") {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(probe.pid)/task")) ?? []
            return !tasks.isEmpty && tasks.allSatisfy { Cgroups.read("/proc/\(probe.pid)/task/\($0)/status").contains("State:\tT") }
        }
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
}
