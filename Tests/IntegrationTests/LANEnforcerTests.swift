import Foundation
import Glibc
import TestSupport
import Testing

@Suite("the LAN enforcers (Unbound, dnsmasq) through the real daemon, with clients of two device groups in network namespaces")
struct LANEnforcerTests {
    static let missing: String? = TestTools.missing {
        guard getuid() == 0 else { return "needs root for network namespaces" }
        for tool in ["unshare", "nsenter", "ip", "python3", "timeout"] where TestTools.which(tool) == nil {
            return "\(tool) is not installed (apt-get install iproute2 util-linux python3)"
        }
        if TestTools.which("unbound") == nil { return "unbound is not installed (apt-get install unbound)" }
        if TestTools.which("dnsmasq") == nil { return "dnsmasq is not installed (apt-get install dnsmasq)" }
        if TestTools.which("dig") == nil { return "dig is not installed (apt-get install dnsutils)" }
        return nil
    }

    @Test(
        "a block for kids is NXDOMAIN for their client only, exceptions resolve, lan blocks everyone, blocks lift, an Unbound restart is repaired within 1 s, large profiles go through the include file; dnsmasq refuses groups and blocks the lan",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func namespaceScenario() throws {
        let result = try ProcessRunner.run(
            TestTools.repository + "/Tests/Scripts/netns-lan-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}
