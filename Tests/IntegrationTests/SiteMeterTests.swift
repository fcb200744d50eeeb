import Foundation
import Glibc
import TestSupport
import Testing

@Suite("the site meter through the real daemon, in private network and mount namespaces")
struct SiteMeterTests {
    static let missing: String? =
        FirewallPrerequisites.missing ?? (which("dig") == nil ? "dig is not installed (apt-get install dnsutils)" : nil)

    @Test(
        "answered queries for a profile's site are metered (meter dns) while an allowance counts, keeping the DNS redirect without a block; once its 20 s are used a block starts; a stop lets go of the redirect",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func siteAllowanceFromAnsweredQueries() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-sitemeter-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}

@Suite("the firewall's byte meter through the real daemon, in private network and mount namespaces")
struct FirewallMeterTests {
    static let missing: String? =
        FirewallPrerequisites.missing ?? (which("dnsmasq") == nil ? "dnsmasq is not installed (apt-get install dnsmasq)" : nil)

    @Test(
        "30 s of streaming from a cached address, with no DNS query, are metered by the bytes (meter firewall); idle seconds before and after count nothing",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func streamFromACachedAddress() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-fwmeter-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}

@Suite("the LAN group meter through the real daemon and Unbound, in private network namespaces")
struct GroupMeterTests {
    static let missing: String? = {
        guard getuid() == 0 else { return "needs root for network namespaces" }
        for tool in ["unshare", "nsenter", "ip", "unbound", "dnsmasq", "python3", "timeout", "dig"] where which(tool) == nil {
            return "\(tool) is not installed (apt-get install unbound dnsmasq dnsutils iproute2)"
        }
        return nil
    }()

    @Test(
        "a device group's queries in Unbound's log are metered (meter lan-dns), and its 20-second allowance, once used, starts a block for the group only",
        .enabled(if: missing == nil, "\(missing ?? "")"))
    func groupAllowanceFromUnboundLog() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-lanmeter-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 240)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}
