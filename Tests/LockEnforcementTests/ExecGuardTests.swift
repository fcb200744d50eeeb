import Foundation
import Glibc
import LockEnforcement
import LockPlatform
import TestSupport
import Testing

/// The exec guard through the app enforcer in a process of its own (`exec-guard-probe`), on a
/// fake installation in a private mount namespace (see `ExecGuardHarness`).
@Suite(
    .serialized,
    .enabled(
        if: ExecGuardHarness.fanotifyUnavailableReason == nil,
        Comment(rawValue: ExecGuardHarness.fanotifyUnavailableReason ?? "")))
struct ExecGuardTests {
    @Test func deniesExecWhileBlockedAndAllowsAfter() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        let before = try harness.inside("\(harness.apps)/game")
        #expect(before.status == 0 && before.stdout == "game running\n", "\(before)")

        let report = try harness.block(["fakegame"])
        #expect(report.details["mode"] == "fanotify")
        #expect(report.elements == 1)
        let denied = try harness.inside("\(harness.apps)/game")
        #expect(denied.status == 126, "\(denied)")
        #expect(denied.stderr.contains("Operation not permitted"), "\(denied)")
        #expect(denied.stdout.isEmpty)
        // Started by a program that is no interpreter (env), the exec itself is what is refused.
        let viaEnv = try harness.inside("env \(harness.apps)/game")
        #expect(viaEnv.status == 126 && viaEnv.stderr.contains("Operation not permitted"), "\(viaEnv)")
        // Unblocked programs run throughout: on the same filesystem and elsewhere.
        #expect(try harness.inside("\(harness.apps)/other && /bin/true").status == 0)
        try waitUntil("the denial is reported") { harness.denials().contains { $0.appID == "fakegame" && $0.reason == .exec } }
        let denial = try #require(harness.denials().first)
        #expect(denial.appName == "Fake Game")
        #expect(denial.path == "\(harness.apps)/game")

        try harness.block([])
        let after = try harness.inside("\(harness.apps)/game")
        #expect(after.status == 0 && after.stdout == "game running\n", "\(after)")
    }

    @Test func deniesHardLinksAndLeavesCopiesToStrictBlocks() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"])
        // A hard link is the same inode: denied.
        let link = try harness.inside("ln \(harness.apps)/game \(harness.apps)/renamed && \(harness.apps)/renamed")
        #expect(link.status == 126, "\(link)")
        // A copy is a new inode: an ordinary block lets it run.
        let copy = try harness.asUser("cp \(harness.apps)/game \(harness.home)/copy && \(harness.home)/copy")
        #expect(copy.status == 0, "\(copy)")

        let strict = try harness.block(["fakegame"], strict: true)
        #expect(strict.details["filesystems"]?.contains(harness.home) == true, "\(strict.details)")
        // A strict block matches content: the user's copy on the user-writable filesystem is
        // denied, and so is a fresh one next to the original.
        let copied = try harness.asUser("\(harness.home)/copy")
        #expect(copied.status == 126, "\(copied)")
        let fresh = try harness.asUser("cp \(harness.apps)/game \(harness.apps)/fresh && \(harness.apps)/fresh")
        #expect(fresh.status == 126, "\(fresh)")
        #expect(try harness.inside("\(harness.apps)/other").status == 0)
        try waitUntil("the copy's denial is reported") { harness.denials().contains { $0.reason == .copy } }
        // A copy only root may write is never compared: content matching is machine-wide, and
        // a system binary must never be blocked for looking like a blocked program.
        let rootCopy = try harness.inside("cp \(harness.apps)/game \(harness.apps)/root-copy && \(harness.apps)/root-copy")
        #expect(rootCopy.status == 0, "\(rootCopy)")
    }

    @Test func deniesScriptsToInterpretersOnly() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["scriptgame"])
        let direct = try harness.inside("\(harness.apps)/game.sh")
        #expect(direct.status == 126, "\(direct)")
        let throughShell = try harness.inside("sh \(harness.apps)/game.sh")
        #expect(throughShell.status != 0 && throughShell.stderr.contains("Operation not permitted"), "\(throughShell)")
        let read = try harness.inside("cat \(harness.apps)/game.sh")
        #expect(read.status == 0 && read.stdout.contains("echo script game"), "\(read)")
        try waitUntil("the interpreter denial is reported") {
            harness.denials().contains { $0.reason == .interpreter && $0.opener?.hasSuffix("sh") == true }
        }
    }

    @Test(.enabled(if: ExecGuardHarness.python != nil, "no python3 interpreter"))
    func deniesPythonScripts() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        let python = try #require(ExecGuardHarness.python)
        #expect(try harness.inside("\(python) \(harness.apps)/game.py").stdout == "python game\n")
        // The entry says `python3 game.py`: the script is blocked, never python3.
        let report = try harness.block(["pygame"])
        #expect(report.elements == 1)
        let denied = try harness.inside("\(python) \(harness.apps)/game.py")
        #expect(denied.status != 0 && denied.stderr.contains("Operation not permitted"), "\(denied)")
        #expect(try harness.inside("cat \(harness.apps)/game.py").stdout == "print(\"python game\")\n")
        let other = try harness.inside("\(python) -c 'print(42)'")
        #expect(other.status == 0 && other.stdout == "42\n", "\(other)")
    }

    @Test func terminatesRunningInstancesAtBlockStart() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe(grace: 1)
        let polite = try harness.start(["\(harness.apps)/game", "sleep"])
        let stubborn = try harness.start(["\(harness.apps)/game", "stubborn"])
        let bystander = try harness.start(["\(harness.apps)/other", "sleep"])
        try waitUntil("the instances run") {
            FileIdentity(path: "/proc/\(polite.pid)/exe") != nil && FileIdentity(path: "/proc/\(stubborn.pid)/exe") != nil
                && FileIdentity(path: "/proc/\(bystander.pid)/exe") != nil
        }
        let started = Date()
        let report = try harness.block(["fakegame"])
        #expect(report.details["terminated"] == "2")
        // SIGTERM ends the polite one at once; the one ignoring it gets SIGKILL after the grace period.
        #expect(polite.wait(timeout: 5) == 128 + SIGTERM)
        #expect(stubborn.wait(timeout: 10) == 128 + SIGKILL)
        #expect(Date().timeIntervalSince(started) >= 0.9)
        #expect(bystander.isRunning)
        bystander.send(SIGKILL)
    }

    @Test(.enabled(if: Cgroups.root != nil, "no cgroup v2 hierarchy"))
    func freezesAnAppScopeAndThawsItAfter() throws {
        let harness = try ExecGuardHarness()
        let root = try #require(Cgroups.root)
        let scope = root + "/app-simplylock-test-\(getpid()).scope"
        try #require(mkdir(scope, 0o755) == 0 || errno == EEXIST)
        defer { rmdir(scope) }
        try harness.startProbe(cgroupRoot: root)
        let game = try harness.start(["/bin/sh", "-c", "echo $$ > \(scope)/cgroup.procs && exec \(harness.apps)/game sleep"])
        defer {
            game.send(SIGKILL)
            _ = game.wait(timeout: 5)
        }
        try waitUntil("the game runs in its scope") {
            Cgroups.read("/proc/\(game.pid)/comm") == "game\n" && Cgroups.read(scope + "/cgroup.procs").contains("\(game.pid)")
        }
        let report = try harness.block(["fakegame"], running: "freeze")
        #expect(report.details["frozen"]?.contains("app-simplylock-test-") == true, "\(report.details)")
        try waitUntil("the scope is frozen") { Cgroups.read(scope + "/cgroup.events").contains("frozen 1") }
        #expect(game.isRunning)
        try harness.block([])
        try waitUntil("the scope is thawed") { Cgroups.read(scope + "/cgroup.events").contains("frozen 0") }
        #expect(game.isRunning)
    }

    @Test(.enabled(if: Cgroups.root != nil, "no cgroup v2 hierarchy"))
    func thawsAfterARestartWhatAKilledGuardFroze() throws {
        let harness = try ExecGuardHarness()
        let root = try #require(Cgroups.root)
        let scope = root + "/app-simplylock-restart-\(getpid()).scope"
        try #require(mkdir(scope, 0o755) == 0 || errno == EEXIST)
        defer { rmdir(scope) }
        let record = harness.directory + "/frozen.json"
        try harness.startProbe(cgroupRoot: root, frozenRecord: record)
        let game = try harness.start(["/bin/sh", "-c", "echo $$ > \(scope)/cgroup.procs && exec \(harness.apps)/game sleep"])
        defer {
            game.send(SIGKILL)
            _ = game.wait(timeout: 5)
        }
        try waitUntil("the game runs in its scope") {
            Cgroups.read("/proc/\(game.pid)/comm") == "game\n" && Cgroups.read(scope + "/cgroup.procs").contains("\(game.pid)")
        }
        try harness.block(["fakegame"], running: "freeze")
        try waitUntil("the scope is frozen") { Cgroups.read(scope + "/cgroup.events").contains("frozen 1") }
        // The guard dies with the scope frozen; the next one finds the record and thaws it
        // when the block is over.
        harness.probe?.send(SIGKILL)
        _ = harness.probe?.wait(timeout: 10)
        #expect(Cgroups.read(scope + "/cgroup.events").contains("frozen 1"))
        try harness.startProbe(cgroupRoot: root, frozenRecord: record)
        try harness.block([])
        try waitUntil("the scope is thawed") { Cgroups.read(scope + "/cgroup.events").contains("frozen 0") }
        #expect(game.isRunning)
    }

    @Test(.enabled(if: Cgroups.root != nil, "no cgroup v2 hierarchy"))
    func terminatesInsteadOfFreezingAScopeThatHoldsOtherPrograms() throws {
        let harness = try ExecGuardHarness()
        let root = try #require(Cgroups.root)
        let scope = root + "/app-simplylock-shared-\(getpid()).scope"
        try #require(mkdir(scope, 0o755) == 0 || errno == EEXIST)
        defer { rmdir(scope) }
        try harness.startProbe(cgroupRoot: root)
        let game = try harness.start(["/bin/sh", "-c", "echo $$ > \(scope)/cgroup.procs && exec \(harness.apps)/game sleep"])
        let terminal = try harness.start(["/bin/sh", "-c", "echo $$ > \(scope)/cgroup.procs && exec sleep 60"])
        defer {
            terminal.send(SIGKILL)
            _ = terminal.wait(timeout: 5)
        }
        try waitUntil("both run in the scope") {
            Cgroups.read("/proc/\(game.pid)/comm") == "game\n" && Cgroups.read("/proc/\(terminal.pid)/comm") == "sleep\n"
                && Cgroups.read(scope + "/cgroup.procs").split(separator: "\n").count == 2
        }
        let report = try harness.block(["fakegame"], running: "freeze")
        #expect(report.details["frozen"] == nil)
        #expect(report.details["notes"]?.contains("holds other programs too") == true, "\(report.details)")
        #expect(game.wait(timeout: 10) == 128 + SIGTERM)
        #expect(terminal.isRunning)
        #expect(Cgroups.read(scope + "/cgroup.events").contains("frozen 0"))
    }

    @Test func followsABlockedProgramOntoANewMount() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"])
        // Another filesystem mounted over the installation: same path, new device and inode.
        let spare = harness.directory + "/spare"
        let moved = try harness.inside(
            """
            mkdir -p \(spare) && mount -t tmpfs tmpfs \(spare) && cp \(harness.apps)/game \(spare)/game \
            && mount --bind \(spare) \(harness.apps)
            """)
        try #require(moved.status == 0, "\(moved)")
        try waitUntil("the program on the new mount is blocked", timeout: 10) {
            try harness.inside("\(harness.apps)/game").status == 126
        }
        let report = try harness.report()
        #expect(report.details["filesystems"]?.contains(harness.apps + "/game") == true, "\(report.details)")
    }

    @Test func deniesTheDynamicLoaderAndExplicitPaths() throws {
        let loader = "/lib64/ld-linux-x86-64.so.2"
        try #require(access(loader, X_OK) == 0, "no x86-64 dynamic loader")
        let harness = try ExecGuardHarness()
        try #require(try harness.inside("cp /bin/true \(harness.apps)/dyntrue").status == 0)
        try harness.startProbe()
        #expect(try harness.inside("\(loader) \(harness.apps)/dyntrue").status == 0)
        let report = try harness.block(["\(harness.apps)/dyntrue"])
        #expect(report.details["apps"] == "\(harness.apps)/dyntrue")
        #expect(try harness.inside("\(harness.apps)/dyntrue").status == 126)
        // Running it through the loader opens it instead of executing it: refused as well.
        let loaded = try harness.inside("\(loader) \(harness.apps)/dyntrue")
        #expect(loaded.status != 0 && loaded.stderr.contains("Operation not permitted"), "\(loaded)")
        #expect(try harness.inside("cat \(harness.apps)/dyntrue > /dev/null").status == 0)
    }

    @Test func killingTheGuardNeverLeavesExecsHanging() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"])
        let probe = try #require(harness.probe)
        // A stopped guard makes execs wait (this is why the watchdog restarts a stuck daemon)…
        probe.send(SIGSTOP)
        try waitUntil("every thread of the probe is stopped") {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(probe.pid)/task")) ?? []
            return !tasks.isEmpty && tasks.allSatisfy { Cgroups.read("/proc/\(probe.pid)/task/\($0)/status").contains("State:\tT") }
        }
        let waiting = try harness.start(["/bin/sh", "-c", "\(harness.apps)/game; exit $?"])
        usleep(300_000)
        #expect(waiting.isRunning)
        // …and killing it lets every waiting and later exec through.
        probe.send(SIGKILL)
        #expect(probe.wait(timeout: 10) != nil)
        #expect(waiting.wait(timeout: 10) == 0)
        let after = try harness.inside("for i in 1 2 3; do \(harness.apps)/game || exit 1; done", timeout: 10)
        #expect(after.status == 0, "\(after)")
    }

    @Test func killingTheGuardDuringAnExecStormLetsEverythingThrough() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"])
        let storm = try harness.start([
            "/bin/sh", "-c",
            "i=0; while [ $i -lt 3000 ]; do \(harness.apps)/game >/dev/null 2>&1; \(harness.apps)/other >/dev/null; i=$((i+1)); done",
        ])
        usleep(200_000)
        harness.probe?.send(SIGKILL)
        #expect(storm.wait(timeout: 60) == 0)
    }

    @Test func cachesAllowedFilesInTheKernel() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["fakegame"])
        let before = try harness.report()
        #expect(try harness.inside("for i in 1 2 3 4 5; do \(harness.apps)/other >/dev/null || exit 1; done").status == 0)
        let after = try harness.report()
        // The first exec asks the guard; the ignore mark keeps the other four from reaching it.
        #expect(Int(after.details["events"] ?? "") == Int(before.details["events"] ?? "")! + 1, "\(before.details) \(after.details)")
        #expect(Int(after.details["cachedInodes"] ?? "") == 1)
        // Applying the same block again keeps the cache; a change of the blocked set forgets
        // what was allowed.
        try harness.block(["fakegame"])
        #expect(try harness.report().details["cachedInodes"] == "1")
        try harness.block(["fakegame", "scriptgame"])
        #expect(try harness.report().details["cachedInodes"] == "0")
    }

    @Test func refusesUnknownApps() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        #expect { try harness.block(["fakegmae"]) } throws: { error in
            "\(error)".contains("unknown app \"fakegmae\"") && "\(error)".contains("did you mean fakegame")
        }
    }
}

/// The fallback for machines where fanotify is refused: exec events from the proc connector.
@Suite(
    .serialized,
    .enabled(
        if: ExecGuardHarness.unavailableReason == nil,
        Comment(rawValue: ExecGuardHarness.unavailableReason ?? "")))
struct ProcConnectorGuardTests {
    @Test func killsBlockedProgramsJustAfterExec() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe(preference: "proc-connector")
        let report = try harness.block(["fakegame"])
        #expect(report.details["mode"] == "proc-connector")
        let started = Date()
        let game = try harness.start(["\(harness.apps)/game", "sleep"])
        #expect(game.wait(timeout: 10) == 128 + SIGKILL)
        #expect(Date().timeIntervalSince(started) < 5)
        try waitUntil("the kill is reported") { harness.denials().contains { $0.reason == .killed && $0.appID == "fakegame" } }
        let other = try harness.start(["\(harness.apps)/other", "sleep"])
        usleep(300_000)
        #expect(other.isRunning)
        other.send(SIGKILL)
        try harness.block([])
        let after = try harness.inside("\(harness.apps)/game")
        #expect(after.status == 0, "\(after)")
    }
}

/// The cgroup v2 hierarchy, for tests that create a scope of their own.
enum Cgroups {
    /// The cgroup v2 mount point.
    static let root: String? = {
        guard let bytes = FileManager.default.contents(atPath: "/proc/self/mountinfo") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " - ", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix("cgroup2 ") else { continue }
            let fields = parts[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }()

    static func read(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
