import Foundation
import LockProtocol
import Testing

@Suite("lockctl doctor")
struct DoctorTests {
    @Test("with the daemon running: every check reported, user entries that defeat a block a problem (exit 1)")
    func daemonRunning() throws {
        let root = try TestRoot(hosts: "127.0.0.1 localhost\n10.1.1.1 reddit.com\n")
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "social", "10m").status == 0)
        let text = try daemon.lockctl("doctor")
        #expect(text.status == 1, "\(text)")
        for name in [
            "socket", "permissions", "daemon", "hosts file", "enforcer hosts", "DNS over HTTPS", "state", "configuration", "clock",
            "time zone",
        ] {
            #expect(text.stdout.contains(name), "missing check \(name):\n\(text.stdout)")
        }
        #expect(text.stdout.contains("problem  hosts file"))
        // check says the same: the hosts file does not block reddit.com here.
        let check = try daemon.lockctl("check", "reddit.com", "--json").decode(CheckResponse.self)
        let hosts = try #require(check.enforcers.first { $0.name == "hosts" }, "\(check)")
        #expect(!hosts.blocks, "\(hosts)")
        #expect(hosts.detail.contains("10.1.1.1 reddit.com"), "\(hosts)")
        #expect(text.stdout.contains("10.1.1.1 reddit.com"))
        let doctor = try daemon.lockctl("doctor", "--json")
        #expect(doctor.status == 1, "\(doctor)")
        let checks = try doctor.decode(DoctorReport.self).checks
        #expect(checks.contains { $0.name == "daemon" && $0.state == .ok })
    }

    @Test("with the daemon down and a section left behind: a problem (exit 1) and the fix")
    func daemonDown() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "10m").status == 0)
        try daemon.kill9()
        let result = try daemon.lockctl("doctor")
        #expect(result.status == 1)
        #expect(result.stdout.contains("problem  daemon"))
        #expect(result.stdout.contains("managed section"))
        #expect(result.stdout.contains("fix: "))
    }
}
