import Foundation
import Glibc
import LockProtocol
import TestSupport
import Testing

/// The app meter asks logind whether the user is at the machine: a running app counts while the
/// session is not idle (`apps-active`), and not while it is. logind is a stand-in on a private
/// bus the daemon takes for the system bus (`DBUS_SYSTEM_BUS_ADDRESS`), whose `IdleHint` the test
/// switches by writing a file.
@Suite(
    "The app meter and logind's idle hint", .serialized,
    .enabled(if: NotifierPrerequisites.missing == nil, "\(NotifierPrerequisites.missing ?? "")"),
    .enabled(if: UsageTests.unavailableReason == nil, Comment(rawValue: UsageTests.unavailableReason ?? "")))
struct UsageIdleTests {
    @Test("an app counts while the session is active (apps-active) and stops counting while it is idle")
    func idleTimeIsNotUse() throws {
        let root = try TestRoot()
        let program = try UsageTests.install(in: root)
        let address = "unix:path=\(root.path)/system-bus"
        let idleFile = root.path + "/idle"
        try "0".write(toFile: idleFile, atomically: true, encoding: .utf8)
        let bus = try ChildProcess(
            TestTools.which("dbus-daemon")!, ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
            environment: ProcessRunner.environment(), stdout: .null, stderr: .null)
        defer {
            bus.send(SIGTERM)
            _ = bus.wait(timeout: 5)
        }
        try waitUntil("the private bus") { FileManager.default.fileExists(atPath: root.path + "/system-bus") }
        let logind = try ChildProcess(
            "/usr/bin/python3", [TestTools.repository + "/Tests/Scripts/logind_standin.py", idleFile, root.path + "/logind.ready"],
            environment: ProcessRunner.environment(["DBUS_SESSION_BUS_ADDRESS": address]), stdout: .null,
            stderr: .file(root.path + "/logind.err"))
        defer {
            logind.send(SIGTERM)
            _ = logind.wait(timeout: 5)
        }
        try waitUntil("the logind stand-in") { FileManager.default.fileExists(atPath: root.path + "/logind.ready") }

        let environment = ["SIMPLYLOCK_USAGE_SAMPLE": "1,1", "DBUS_SYSTEM_BUS_ADDRESS": address]
        let daemon = try DaemonProcess(root: root, environment: environment)
        Thread.sleep(forTimeInterval: 1.5)
        let game = try ChildProcess(program, ["wait"], environment: ProcessRunner.environment([:]), stdout: .null, stderr: .null)
        defer {
            game.send(SIGKILL)
            _ = game.wait(timeout: 5)
        }
        Thread.sleep(forTimeInterval: 5)
        // Idle from here on: the app keeps running, and no more of its time counts.
        try "1".write(toFile: idleFile, atomically: true, encoding: .utf8)
        Thread.sleep(forTimeInterval: 1.5)
        try daemon.stop()
        try daemon.restart(environment: environment)
        let active = try Self.seconds(daemon)
        #expect(active >= 3 && active <= 8, "about 5 s active, metered \(active) s")
        try daemon.stop()
        try daemon.restart(environment: environment)
        Thread.sleep(forTimeInterval: 5)
        try daemon.stop()
        try daemon.restart(environment: environment)
        let later = try Self.seconds(daemon)
        #expect(later == active, "5 s more while idle were metered: \(active) s then \(later) s")
        let minutes = try #require(try daemon.decode(UsageResponse.self, "usage", "--days", "2", "--explain").minutes)
        #expect(!minutes.isEmpty && minutes.allSatisfy { $0.meter == "apps-active" }, "\(minutes)")
        try daemon.stop()
    }

    static func seconds(_ daemon: DaemonProcess) throws -> Int {
        try daemon.decode(UsageResponse.self, "usage", "--days", "2").items.first { $0.name == "fakegame" }?.seconds ?? 0
    }
}
