import Foundation
import Glibc
import LockPlatform
import TestSupport
import Testing

@testable import LockEnforcement

/// Renamed copies of the dynamic loader and of interpreters, made by an ordinary user in the
/// user-writable test tmpfs, are recognised by what they are (programs a user made), not by
/// their names (see `ExecRules.mayRunOthers`). The blocked programs are fake games of their
/// own content; the loader and interpreter copies are never blocked themselves.
@Suite(
    .serialized,
    .enabled(
        if: ExecGuardHarness.fanotifyUnavailableReason == nil,
        Comment(rawValue: ExecGuardHarness.fanotifyUnavailableReason ?? "")))
struct LoaderCopyTests {
    static let loader = "/lib64/ld-linux-x86-64.so.2"

    /// Builds a dynamically linked fake game into the fake installation; returns its path.
    static func dynamicGame(_ harness: ExecGuardHarness) throws -> String {
        let built = harness.directory + "/dyngame"
        let program = """
            #include <stdio.h>
            #include <unistd.h>
            int main(int argc, char **argv) { (void)argv; if (argc > 1) for (;;) pause(); puts("dynamic fake game"); return 0; }
            """
        try program.write(toFile: built + ".c", atomically: true, encoding: .utf8)
        try #require(try ProcessRunner.run("/usr/bin/gcc", ["-O2", "-o", built, built + ".c"]).status == 0)
        let game = harness.apps + "/dyngame"
        try #require(try harness.inside("cp \(built) \(game)").status == 0)
        return game
    }

    @Test(.enabled(if: access(loader, X_OK) == 0, "no x86-64 dynamic loader"))
    func aRenamedLoaderNeitherStartsNorKeepsABlockedGame() throws {
        let harness = try ExecGuardHarness()
        let game = try Self.dynamicGame(harness)
        let loaderCopy = harness.home + "/x"
        try #require(try harness.asUser("cp \(Self.loader) \(loaderCopy)").status == 0)
        try harness.startProbe(grace: 1)
        // Started through the renamed loader before the block: /proc/PID/exe is the loader copy.
        let running = try harness.start([
            "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", loaderCopy, game, "sleep",
        ])
        // setpriv's own command line names the game too: wait for the exec of the loader copy.
        // (The copy is in the harness's mount namespace: compare the path /proc/PID/exe names.)
        try waitUntil("the game runs through the loader copy") {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running.pid)/exe")) == loaderCopy
                && RunningProcesses.arguments(pid: running.pid).contains(game)
        }
        let report = try harness.block([game])
        #expect(report.details["terminated"] == "1", "\(report.details)")
        #expect(running.wait(timeout: 10) != nil)
        let again = try harness.asUser("\(loaderCopy) \(game)")
        #expect(again.status != 0 && again.stderr.contains("not permitted"), "\(again)")
        // The loader copy itself is not blocked: other programs run through it.
        let other = try harness.asUser("\(loaderCopy) /bin/true")
        #expect(other.status == 0, "\(other)")
    }

    @Test func renamedInterpretersCannotRunBlockedScripts() throws {
        let harness = try ExecGuardHarness()
        try harness.startProbe()
        try harness.block(["scriptgame"])
        let dash = try harness.asUser("cp /bin/dash \(harness.home)/d && \(harness.home)/d \(harness.apps)/game.sh")
        #expect(dash.status != 0 && dash.stderr.contains("not permitted") && !dash.stdout.contains("script game"), "\(dash)")
        if let python = ExecGuardHarness.python {
            try harness.block(["pygame"])
            let snake = try harness.asUser("cp \(python) \(harness.home)/snake && \(harness.home)/snake \(harness.apps)/game.py")
            #expect(snake.status != 0 && !snake.stdout.contains("python game"), "\(snake)")
            #expect(snake.stderr.contains("not permitted"), "\(snake)")
            let works = try harness.asUser("\(harness.home)/snake -c 'print(42)'")
            #expect(works.stdout == "42\n", "\(works)")
        }
    }

    /// Copies root made (not user-controlled) under names that say nothing: the loader is known
    /// by its ELF header, dash and python3 by their bytes (`ProgramRunners`).
    @Test(.enabled(if: access(loader, X_OK) == 0, "no x86-64 dynamic loader"))
    func rootMadeCopiesUnderOtherNamesAreRecognisedByContent() throws {
        let harness = try ExecGuardHarness()
        let game = try Self.dynamicGame(harness)
        let (runner, shell, snake) = (harness.apps + "/runner", harness.apps + "/shellish", harness.apps + "/snake")
        let python = ExecGuardHarness.python ?? "/bin/dash"
        try #require(try harness.inside("cp \(Self.loader) \(runner) && cp /bin/dash \(shell) && cp \(python) \(snake)").status == 0)
        try harness.startProbe(grace: 1)
        let running = try harness.start(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", runner, game, "sleep"])
        try waitUntil("the game runs through the root-made loader copy") {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running.pid)/exe")) == runner
                && RunningProcesses.arguments(pid: running.pid).contains(game)
        }
        let report = try harness.block([game, "scriptgame", "pygame"])
        #expect(report.details["terminated"] == "1", "\(report.details)")
        #expect(running.wait(timeout: 10) != nil)
        let again = try harness.asUser("\(runner) \(game)")
        #expect(again.status != 0 && again.stderr.contains("not permitted"), "\(again)")
        #expect(try harness.asUser("\(runner) /bin/true").status == 0)
        let script = try harness.asUser("\(shell) \(harness.apps)/game.sh")
        #expect(script.status != 0 && !script.stdout.contains("script game"), "\(script)")
        #expect(try harness.asUser("\(shell) -c 'echo fine'").stdout == "fine\n")
        if ExecGuardHarness.python != nil {
            let py = try harness.asUser("\(snake) \(harness.apps)/game.py")
            #expect(py.status != 0 && py.stderr.contains("not permitted") && !py.stdout.contains("python game"), "\(py)")
            #expect(try harness.asUser("\(snake) -c 'print(42)'").stdout == "42\n")
        }
        #expect(harness.denials().contains { $0.opener == runner }, "\(harness.denials())")
    }
}
