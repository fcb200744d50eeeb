import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// `check --app` and `status` say an app is blocked only when an enforcer in force stops it,
/// and `check --app PATH` never looks at the file as root for whoever asks.
@Suite struct AppCheckTruthTests {
    @Test("with no app enforcer running, a blocked profile's app is reported as NOT blocked (exit 1)")
    func noAppEnforcerMeansNotBlocked() throws {
        let root = try TestRoot()
        let program = root.path + "/fakegame"
        try "#!/bin/sh\necho game running\n".write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        // The default test daemon runs the hosts enforcer only.
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("profiles", "create", "games", "--app", program).status == 0)
        // Its sites would be blocked, so start succeeds, and says the apps are not.
        let started = try daemon.lockctl("start", "games", "10m")
        #expect(started.status == 0, "\(started)")
        #expect(started.stdout.contains("games blocked until"), "\(started)")
        #expect(started.stdout.contains("  apps are NOT blocked: no app enforcer is running"), "\(started)")
        let extended = try daemon.lockctl("extend", "games", "5m")
        #expect(extended.stdout.contains("apps are NOT blocked"), "\(extended)")
        let sessions = try daemon.decode(StatusResponse.self, "status").sessions
        #expect(sessions.first?.appsNotBlocked == "apps are NOT blocked: no app enforcer is running", "\(sessions)")
        #expect(try daemon.lockctl("status").stdout.contains("(NOT blocked)"))
        let text = try daemon.lockctl("check", "--app", program)
        #expect(text.status == 1, "\(text)")
        #expect(text.stdout.contains("is NOT blocked: games blocks it, but no app enforcer is running"), "\(text)")
        let answer = try daemon.lockctl("check", "--app", program, "--json")
        #expect(answer.status == 1, "\(answer)")
        let json = try answer.decode(CheckResponse.self)
        #expect(json.blocked == false, "\(json)")
        #expect(json.matches.count == 1, "\(json)")
        let status = try daemon.decode(StatusResponse.self, "status")
        #expect(status.notices.contains("apps are NOT blocked: no app enforcer is running"), "\(status)")
    }

    @Test(
        "check --app PATH tells an ordinary user nothing about files it cannot see",
        .enabled(if: canSwitchUser, "needs root and /usr/bin/setpriv to run lockctl as uid 65534"))
    func pathsAreNotInspectedForTheCaller() throws {
        let root = try TestRoot()
        let hidden = root.path + "/private"
        mkdir(hidden, 0o700)
        let secret = hidden + "/secret-program"
        try "#!/bin/sh\n".write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o644)
        let daemon = try DaemonProcess(root: root)
        defer { _ = daemon }
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.lockctl, "--root", root.path, "check", "--app"]
        let existing = try ProcessRunner.run("/usr/bin/setpriv", asNobody + [secret])
        let missing = try ProcessRunner.run("/usr/bin/setpriv", asNobody + [hidden + "/no-such-program"])
        // The same answer whether the file exists (not executable, even) or not.
        #expect(existing.status == missing.status, "\(existing) \(missing)")
        #expect(
            existing.stderr.replacingOccurrences(of: "secret-program", with: "X")
                == missing.stderr.replacingOccurrences(of: "no-such-program", with: "X"), "\(existing) \(missing)")
        #expect(!existing.stderr.contains("not an executable"), "\(existing)")
    }
}
