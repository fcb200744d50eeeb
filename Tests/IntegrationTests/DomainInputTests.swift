import Foundation
import LockProtocol
import TestSupport
import Testing

@Suite("Domains typed or pasted into lockctl reach the daemon's browser-grade parser")
struct DomainInputTests {
    @Test("pasted URLs block what the browser visits; public suffixes are refused with the reason")
    func pastedURLsAndPublicSuffixes() throws {
        let root = try TestRoot()
        let daemon = try DaemonProcess(root: root)
        let created = try daemon.lockctl(
            "profiles", "create", "pasted", "--domain", "https://www.reddit.com/r/x",
            "--domain", "ＥＸＡＭＰＬＥ.com", "--domain", "https://example.org\\@evil.com/")
        #expect(created.status == 0, "\(created)")
        let profile = try daemon.decode(ProfileInfo.self, "profiles", "show", "pasted")
        #expect(profile.domains == ["reddit.com", "example.com", "example.org"])

        let suffix = try daemon.lockctl("profiles", "create", "suffix", "--domain", "co.uk")
        #expect(suffix.status != 0)
        #expect(suffix.stderr.contains("co.uk is a public suffix: it would block every site under it"), "\(suffix)")

        #expect(try daemon.lockctl("start", "pasted", "5m").status == 0)
        let hosts = root.hosts()
        #expect(hosts.contains(" reddit.com") && hosts.contains(" www.reddit.com") && !hosts.contains("evil.com"))
        // check asks about the name the browser looks up, www. included.
        let check = try daemon.decode(CheckResponse.self, "check", "https://www.reddit.com/r/x")
        #expect(check.blocked)
        // A subdomain is covered by the profile's rule, but the hosts file alone cannot stop it
        // (the dns enforcer does), and check says so instead of claiming it is blocked.
        let sub = try daemon.lockctl("check", "https://old.reddit.com/r/x", "--json")
        #expect(sub.status == 1)
        let answer = try sub.decode(CheckResponse.self)
        #expect(answer.blocked == false)
        #expect(answer.matches.first?.rule == "reddit.com")
        #expect(answer.enforcers.first?.detail.contains("exact names only") == true, "\(answer)")
        #expect(try daemon.lockctl("check", "evil.com").status == 1)
    }
}
