import Foundation
import Glibc
import TestSupport
import Testing

/// Strict blocks against an ordinary user (uid 65534) making copies of the blocked fake game on
/// the user-writable test tmpfs: many at once, and edited ones (see `ExecGuardHarness`).
@Suite(
    .serialized,
    .enabled(
        if: ExecGuardHarness.fanotifyUnavailableReason == nil,
        Comment(rawValue: ExecGuardHarness.fanotifyUnavailableReason ?? "")))
struct StrictCopyTests {
    @Test func anExecStormOfCopiesNeverRunsAndLeavesNothingAllowed() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"], strict: true)
        let home = harness.home
        let made = try harness.asUser("for i in $(seq 1 200); do cp \(harness.apps)/game \(home)/c$i || exit 1; done")
        try #require(made.status == 0, "\(made)")
        // All 200 at once: more than the guard reads in time, so some are refused unread.
        let storm = try harness.asUser("for i in $(seq 1 200); do \(home)/c$i & done; wait", timeout: 120)
        #expect(!storm.stdout.contains("game running"), "\(storm.stdout.split(separator: "\n").count) ran")
        // Nothing unread was remembered as allowed: every copy is refused again, one by one.
        let again = try harness.asUser("for i in $(seq 1 200); do \(home)/c$i; done", timeout: 120)
        #expect(!again.stdout.contains("game running"), "\(again.stdout.split(separator: "\n").count) ran")
        let report = try harness.report()
        #expect(report.details["allowedUnchecked"] == nil, "\(report.details)")
        #expect(report.details["cachedInodes"] == "0", "\(report.details)")
        // Each of the 400 execs was refused, as a copy or as unchecked.
        let refused = Int(report.details["denials"] ?? "0")! + Int(report.details["refusedUnchecked"] ?? "0")!
        #expect(refused >= 400, "\(report.details)")
    }

    @Test func aUserWritableFilesystemMountedDuringTheBlockIsWatched() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"], strict: true)
        // Neither listed as user-writable nor there when the block started: a tmpfs (its root
        // world-writable, as tmpfs mounts are by default) as udisks or a user namespace makes.
        let stick = harness.directory + "/stick"
        try #require(try harness.inside("mkdir -p \(stick) && mount -t tmpfs tmpfs \(stick)").status == 0)
        try waitUntil("a copy on the new mount is refused", timeout: 15) {
            try harness.asUser("cp \(harness.apps)/game \(stick)/g 2>/dev/null; \(stick)/g").status == 126
        }
        #expect(try harness.report().details["filesystems"]?.contains(stick) == true)
        // A root-only mount (mode 755) is not user-writable and not watched for copies.
        let closed = harness.directory + "/closed"
        try #require(try harness.inside("mkdir -p \(closed) && mount -t tmpfs -o mode=755 tmpfs \(closed)").status == 0)
        usleep(500_000)
        #expect(try harness.report().details["filesystems"]?.contains(closed) == false)
    }

    @Test func editedCopiesAreRecognisedAndOtherProgramsRun() throws {
        let harness = try ExecGuardHarness()
        let other = harness.directory + "/other-program"
        try "#include <stdio.h>\nint main(void) { puts(\"another program\"); return 0; }\n".write(
            toFile: other + ".c", atomically: true, encoding: .utf8)
        try #require(try ProcessRunner.run("/usr/bin/gcc", ["-static", "-O2", "-o", other, other + ".c"]).status == 0)
        try harness.startProbe()
        try harness.block(["fakegame"], strict: true)
        let game = harness.apps + "/game"
        let home = harness.home
        let edits = [
            "appended": "cp \(game) \(home)/appended && echo >> \(home)/appended",
            "changed": "cp \(game) \(home)/changed && printf XXXX | dd of=\(home)/changed bs=1 seek=300000 conv=notrunc status=none",
            "inserted": """
            { head -c 400000 \(game); printf inserted; tail -c +400001 \(game); } > \(home)/inserted && chmod +x \(home)/inserted
            """,
        ]
        for (name, make) in edits.sorted(by: { $0.key < $1.key }) {
            let run = try harness.asUser("\(make) && \(home)/\(name)")
            #expect(run.status == 126 && !run.stdout.contains("game running"), "\(name): \(run)")
        }
        // Another static C program of about the same size, the same C library inside: runs.
        let unrelated = try harness.asUser("cp \(other) \(home)/other && \(home)/other")
        #expect(unrelated.status == 0 && unrelated.stdout == "another program\n", "\(unrelated)")
        try harness.block([])
        let after = try harness.asUser("\(home)/appended")
        #expect(after.status == 0 && after.stdout == "game running\n", "\(after)")
        // Bytes inserted mid-file break the program (it crashes), but nothing refuses it now.
        let inserted = try harness.asUser("\(home)/inserted")
        #expect(inserted.status != 126, "\(inserted)")
    }
}
