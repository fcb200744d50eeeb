import Foundation
import LockProtocol
import TestSupport
import Testing

@Suite("Persistence across crashes and restarts")
struct PersistenceTests {
    @Test("kill -9 and restart resumes the session with its remaining time; the hosts file stays valid")
    func killAndRestart() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "social", "10m").status == 0)
        let before = root.hosts()
        try daemon.kill9()
        #expect(root.hosts() == before)
        try daemon.restart()
        let sessions = try daemon.decode(StatusResponse.self, "status").sessions
        #expect(sessions.count == 1)
        let remaining = sessions.first?.remainingSeconds ?? 0
        #expect(remaining > 560 && remaining <= 600)
        #expect(root.hosts() == before)
    }

    @Test("a session that ran out while the daemon was down is ended as daemon-restart")
    func expiredWhileDown() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "news", "1s").status == 0)
        try daemon.kill9()
        #expect(root.hosts().contains("simplylock"))
        usleep(1_500_000)
        try daemon.restart()
        try waitUntil("the stale section to be removed") { !root.hosts().contains("simplylock") }
        let entries = try daemon.decode(HistoryResponse.self, "history").entries
        #expect(entries.first?.endReason == "daemon-restart")
    }

    @Test("kill -9 at many moments during a burst of changes never damages the hosts file")
    func killDuringChanges() throws {
        let root = try TestRoot(hosts: "127.0.0.1 localhost\r\n10.1.2.3 reddit.com # mine\r\n")
        let user = "127.0.0.1 localhost\r\n10.1.2.3 reddit.com # mine\r\n"
        let daemon = try DaemonProcess(root: root)
        for round in 0..<4 {
            let done = DispatchSemaphore(value: 0)
            let worker = Thread {
                for _ in 0..<20 {
                    _ = try? daemon.lockctl("start", "video", "1h")
                    _ = try? daemon.lockctl("stop", "video")
                }
                done.signal()
            }
            worker.start()
            usleep(UInt32(150_000 + round * 70_000))
            try daemon.kill9()
            done.wait()
            let hosts = root.hosts()
            #expect(hosts.hasPrefix(user), "round \(round): user content changed")
            if hosts.contains("# BEGIN simplylock") { #expect(hosts.contains("# END simplylock")) }
            try daemon.restart()
            let active = try daemon.decode(StatusResponse.self, "status").sessions
            #expect(root.hosts().contains(" youtube.com") == !active.isEmpty)
            usleep(300_000)
        }
    }
}
