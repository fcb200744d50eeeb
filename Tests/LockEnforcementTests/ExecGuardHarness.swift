import Foundation
import Glibc
import LockEnforcement
import LockPlatform
import LockProtocol
import TestSupport

/// A private mount namespace with two tmpfs mounts: `apps` holding a fake installation (a
/// static binary, copies of it, a shell-script game and a Python game, with `.desktop`
/// entries naming them) and `home`, a user-writable filesystem. The exec guard runs in
/// `exec-guard-probe`, a process of its own inside the namespace; commands to test run there
/// through `nsenter`. The test runner itself only ever executes programs on the root
/// filesystem, which the guard does not watch, so it can never be the one waiting for a
/// decision.
final class ExecGuardHarness {
    /// The scratch directory on the root filesystem (control FIFO, probe output).
    let directory: String
    /// Mount point of the fake installation (a tmpfs inside the namespace).
    var apps: String { directory + "/apps" }
    /// Mount point of the user-writable tmpfs.
    var home: String { directory + "/home" }
    private let holder: ChildProcess
    private(set) var probe: ChildProcess?
    private var sequence = 0

    /// Why these tests cannot run here, or nil.
    static let unavailableReason: String? = {
        if getuid() != 0 { return "needs root (mount namespaces, fanotify)" }
        for tool in ["/usr/bin/unshare", "/usr/bin/nsenter", "/usr/bin/gcc", "/usr/bin/setpriv"] where access(tool, X_OK) != 0 {
            return "\(tool) is missing"
        }
        if ExecGuardHarness.fakeGame == nil { return "gcc -static failed (no static C library?)" }
        if access(probeBinary, X_OK) != 0 { return "exec-guard-probe not built at \(probeBinary)" }
        return nil
    }()

    static let fanotifyUnavailableReason: String? = unavailableReason ?? ExecGuard.fanotifyUnavailableReason()

    /// The probe sits next to the test bundle (SwiftPM puts products and tests together).
    static let probeBinary: String = {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("exec-guard-probe").path) {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("exec-guard-probe").path
    }()

    /// The static fake game (see `FakeGame`).
    static var fakeGame: String? { FakeGame.binary }

    /// The Python that runs the Python game (a real interpreter, not a wrapper script).
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { access($0, X_OK) == 0 }

    init() throws {
        var template = Array("/tmp/execguard-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp failed") }
        directory = String(cString: template)
        // Traversable by the ordinary user the tests run copies as.
        chmod(directory, 0o755)
        for sub in ["apps", "home"] { mkdir(directory + "/" + sub, 0o755) }
        mkfifo(directory + "/control", 0o600)
        let mounted = directory + "/mounted"
        holder = try ChildProcess(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs tmpfs \(directory)/apps && mount -t tmpfs tmpfs \(directory)/home && touch \(mounted) && exec sleep 3600",
            ], environment: ProcessRunner.environment())
        try waitUntil("the namespace is set up") { access(mounted, F_OK) == 0 }
        guard let game = Self.fakeGame else { throw TestFailure("no fake game") }
        let python = Self.python ?? "python3"
        let setup = """
            set -e
            A=\(apps)
            cp \(game) $A/game
            cp \(game) $A/other && printf '\\0' >> $A/other
            printf '#!/bin/sh\\necho script game\\n' > $A/game.sh && chmod +x $A/game.sh
            printf 'print("python game")\\n' > $A/game.py
            mkdir -p $A/share/applications
            cat > $A/share/applications/fakegame.desktop <<END
            [Desktop Entry]
            Type=Application
            Name=Fake Game
            Exec=$A/game --fullscreen %U
            Categories=Game;ActionGame;
            END
            cat > $A/share/applications/scriptgame.desktop <<END
            [Desktop Entry]
            Type=Application
            Name=Script Game
            Exec="$A/game.sh" %f
            Categories=Game;
            END
            cat > $A/share/applications/pygame.desktop <<END
            [Desktop Entry]
            Type=Application
            Name=Python Game
            Exec=\(python) $A/game.py
            Categories=Game;
            END
            """
        let result = try inside(setup)
        guard result.status == 0 else { throw TestFailure("setting up the fake installation failed: \(result)") }
    }

    deinit {
        if let probe, probe.isRunning {
            probe.send(SIGKILL)
            _ = probe.wait(timeout: 10)
        }
        holder.send(SIGKILL)
        _ = holder.wait(timeout: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a shell script inside the namespace.
    func inside(_ script: String, timeout: Double = 30) throws -> CommandResult {
        try ProcessRunner.run("/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", "--", "/bin/sh", "-c", script], timeout: timeout)
    }

    /// Runs a shell script inside the namespace as an ordinary user (nobody, no groups).
    func asUser(_ script: String, timeout: Double = 30) throws -> CommandResult {
        let quoted = "'" + script.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return try inside("exec setpriv --reuid=65534 --regid=65534 --clear-groups /bin/sh -c \(quoted)", timeout: timeout)
    }

    /// Starts a program inside the namespace (nsenter execs it: the child's pid is the program's).
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", "--"] + arguments,
            environment: ProcessRunner.environment())
    }

    /// Starts the probe with the fake installation as its only data directory.
    func startProbe(
        preference: String = "fanotify", grace: Double = 5, cgroupRoot: String? = nil,
        frozenRecord: String? = nil
    ) throws {
        if let probe, probe.isRunning { throw TestFailure("a probe is running already") }
        let readyBefore = outputLines().filter { $0 == "ready" }.count
        var arguments = [
            Self.probeBinary, "--control", directory + "/control", "--output", directory + "/output",
            "--data-dir", apps + "/share", "--user-writable", home, "--mount-scope", directory, "--preference", preference,
            "--grace", "\(grace)",
        ]
        if let cgroupRoot { arguments += ["--cgroup-root", cgroupRoot] }
        if let frozenRecord { arguments += ["--frozen-record", frozenRecord] }
        let probe = try ChildProcess(
            "/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", "--"] + arguments,
            environment: ProcessRunner.environment(), stderr: .file(directory + "/probe.log"))
        self.probe = probe
        try waitUntil("the probe is ready") { outputLines().filter { $0 == "ready" }.count > readyBefore }
    }

    /// Blocks these apps (all others unblocked) and returns the enforcer's report.
    @discardableResult
    func block(_ apps: [String], strict: Bool = false, running: String = "terminate") throws -> ProbeReport {
        let list = apps.map { #"{"id":"\#($0)","strict":\#(strict),"running":"\#(running)"}"# }.joined(separator: ",")
        return try command(#""apps":[\#(list)]"#)
    }

    /// The enforcer's report now.
    func report() throws -> ProbeReport { try command(#""report":true"#) }

    private func command(_ body: String) throws -> ProbeReport {
        sequence += 1
        let line = #"{"seq":\#(sequence),\#(body)}"# + "\n"
        let fd = open(directory + "/control", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestFailure("cannot open the control FIFO") }
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let applied = "applied \(sequence) "
        let failed = "error \(sequence) "
        var answer: String?
        try waitUntil("the probe answers command \(sequence)", timeout: 20) {
            answer = outputLines().first { $0.hasPrefix(applied) || $0.hasPrefix(failed) }
            return answer != nil
        }
        guard let answer, answer.hasPrefix(applied) else { throw TestFailure("probe: \(answer ?? "")") }
        return try JSONDecoder().decode(ProbeReport.self, from: Data(answer.dropFirst(applied.count).utf8))
    }

    /// Denials the probe reported so far.
    func denials() -> [ExecDenial] {
        outputLines().filter { $0.hasPrefix("denied ") }.compactMap {
            try? JSONDecoder().decode(ExecDenial.self, from: Data($0.dropFirst(7).utf8))
        }
    }

    func outputLines() -> [String] {
        guard let data = FileManager.default.contents(atPath: directory + "/output") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The probe's log, for failure messages.
    var probeLog: String {
        FileManager.default.contents(atPath: directory + "/probe.log").map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// The enforcer's status as the probe process writes it: details as text.
struct ProbeReport: Codable {
    var name: String
    var applied: Bool
    var elements: Int
    var lastError: String?
    var details: [String: String]
}
