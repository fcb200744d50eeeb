import Foundation
import LockProtocol
import TestSupport
import Testing

@Suite("Sessions through the real daemon and lockctl")
struct SessionLifecycleTests {
    @Test("start, status, extend, stop; the hosts section follows")
    func startStatusExtendStop() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)

        let idle = try daemon.lockctl("status")
        #expect(idle.status == 0)
        #expect(idle.stdout.contains("idle"))

        let start = try daemon.lockctl("start", "deep-work", "45m")
        #expect(start.status == 0, "\(start)")
        #expect(root.hosts().contains("0.0.0.0 "))
        #expect(root.hosts().contains(" reddit.com"))
        #expect(root.hosts().contains(" www.reddit.com"))
        #expect(root.hosts().contains(":: "))
        #expect(root.hosts().hasPrefix("127.0.0.1 localhost\n::1 localhost ip6-localhost\n# user comment\n# BEGIN simplylock\n"))

        let sessions = try daemon.decode(StatusResponse.self, "status").sessions
        try #require(sessions.count == 1)
        let session = sessions[0]
        #expect(session.profile == "deep-work")
        #expect(session.origin == "manual")
        #expect(session.strict == false)
        let remaining = session.remainingSeconds
        #expect(remaining > 2690 && remaining <= 2700)
        #expect(abs(session.endsAt.timeIntervalSince(session.startedAt) - 2700) < 5)

        let extend = try daemon.lockctl("extend", "deep-work", "15m")
        #expect(extend.status == 0, "\(extend)")
        let extended = try #require(try daemon.decode(StatusResponse.self, "status").sessions.first)
        #expect(extended.remainingSeconds > 3590)

        let stop = try daemon.lockctl("stop", "deep-work")
        #expect(stop.status == 0, "\(stop)")
        #expect(root.hosts() == "127.0.0.1 localhost\n::1 localhost ip6-localhost\n# user comment\n")

        let entries = try daemon.decode(HistoryResponse.self, "history").entries
        #expect(entries.first?.endReason == "stopped")
        try daemon.stop()
    }

    @Test("a strict session cannot be stopped; exit status 5 with a clear message")
    func strictRefusal() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "social", "1h", "--strict").status == 0)
        let stop = try daemon.lockctl("stop", "social")
        #expect(stop.status == 5)
        #expect(stop.stderr.contains("strict"))
        #expect(root.hosts().contains(" facebook.com"))
        let shorten = try daemon.lockctl("extend", "social", "0s")
        #expect(shorten.status == 2)
        #expect(try daemon.lockctl("extend", "social", "10m").status == 0)
    }

    @Test("a short session ends by itself on time and the section is removed")
    func expiry() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let started = Date()
        #expect(try daemon.lockctl("start", "news", "2s").status == 0)
        #expect(root.hosts().contains("news.ycombinator.com"))
        try waitUntil("the section to be removed", timeout: 10) { !root.hosts().contains("simplylock") }
        #expect(Date().timeIntervalSince(started) >= 1.9)
        #expect(try daemon.decode(HistoryResponse.self, "history").entries.first?.endReason == "expired")
        #expect(try daemon.lockctl("status").stdout.contains("idle"))
    }

    @Test("several sessions at once: the union is enforced; check names the blockers")
    func unionAndCheck() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(
            try daemon.lockctl(
                "profiles", "create", "focus", "--domain", "https://Example.COM./path?q=1",
                "--domain", "bücher.example"
            ).status == 0)
        #expect(try daemon.lockctl("start", "focus", "10m").status == 0)
        #expect(try daemon.lockctl("start", "video", "10m").status == 0)
        let hosts = root.hosts()
        #expect(hosts.contains(" example.com") && hosts.contains(" xn--bcher-kva.example") && hosts.contains(" youtube.com"))
        let check = try daemon.lockctl("check", "www.example.com")
        #expect(check.status == 0)
        #expect(check.stdout.contains("focus"))
        #expect(try daemon.decode(CheckResponse.self, "check", "www.youtube.com").blocked)
        // The hosts enforcer alone lists exact names: a subdomain is not really blocked.
        let sub = try daemon.lockctl("check", "m.youtube.com")
        #expect(sub.status == 1 && sub.stdout.contains("NOT blocked") && sub.stdout.contains("rule youtube.com"), "\(sub.stdout)")
        #expect(try daemon.lockctl("check", "example.org").status == 1)
        #expect(try daemon.lockctl("stop", "video").status == 0)
        #expect(!root.hosts().contains(" youtube.com"))
        #expect(root.hosts().contains(" example.com"))
    }

    @Test("adding a domain during a block applies in place, without lifting the block")
    func addDomainDuringBlock() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("profiles", "create", "focus", "--domain", "reddit.com").status == 0)
        #expect(try daemon.lockctl("start", "focus", "10m").status == 0)
        #expect(try daemon.lockctl("profiles", "add-domain", "focus", "x.com").status == 0)
        let hosts = root.hosts()
        #expect(hosts.contains(" reddit.com") && hosts.contains(" x.com"))
        #expect(try daemon.lockctl("profiles", "delete", "focus").status == 5)
    }

    @Test("usage errors and unknown names have distinct exit statuses")
    func exitStatuses() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        #expect(try daemon.lockctl("start", "deep-work", "45").status == 2)
        #expect(try daemon.lockctl("start", "no-such-profile", "5m").status == 6)
        #expect(try daemon.lockctl("stop", "deep-work").status == 6)
        #expect(try daemon.lockctl("profiles", "create", "Bad_Name").status == 2)
        let badDomain = try daemon.lockctl("profiles", "create", "x", "--domain", "exa mple.com")
        #expect(badDomain.status == 2)
        #expect(badDomain.stderr.contains("exa mple.com"))
        #expect(try daemon.lockctl("profiles", "delete", "social").status == 5)
        #expect(try daemon.lockctl("start", "deep-work", "45m").status == 0)
        #expect(try daemon.lockctl("start", "deep-work", "45m").status == 5)
        try daemon.stop()
        let unreachable = try daemon.lockctl("status")
        #expect(unreachable.status == 3)
        #expect(unreachable.stderr.contains("simplylockd"))
    }
}
