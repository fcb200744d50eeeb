import Foundation
import Glibc
import TestSupport
import Testing

@Suite("the DNS filter through the real daemon, in private network and mount namespaces")
struct DNSFilterTests {
    static let missing: String? =
        FirewallPrerequisites.missing
        ?? (which("dig") == nil ? "dig is not installed (apt-get install dnsutils)" : nil)
        ?? (which("getent") == nil ? "getent is not installed" : nil)

    @Test(
        "blocked names and every name under them get no real address, by getent, getaddrinfo and dig; the rest resolves; nothing is left after the block",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func namespaceScenario() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-dns-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }

    @Test(
        "with a local stub resolver (dnsmasq on 127.0.1.1) as the only resolver, blocked names and their subdomains get 0.0.0.0 through it, the rest resolves through its own upstream",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func localStubResolver() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-stub-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 240)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}
