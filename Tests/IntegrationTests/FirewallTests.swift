import Foundation
import Glibc
import TestSupport
import Testing

/// What the namespace test needs; it skips itself (exit 77) when something is missing, and
/// this check says which before running it.
enum FirewallPrerequisites {
    static let missing: String? = {
        guard getuid() == 0 else { return "needs root for network namespaces" }
        for tool in ["unshare", "nsenter", "ip", "nft", "dnsmasq", "python3", "timeout"] where which(tool) == nil {
            return "\(tool) is not installed (apt-get install nftables dnsmasq iproute2)"
        }
        guard let probe = try? ProcessRunner.run(which("unshare")!, ["-n", which("nft")!, "list", "ruleset"]), probe.status == 0 else {
            return "nft cannot talk to the kernel in a private network namespace here"
        }
        return nil
    }()
}

@Suite("nftables enforcement through the real daemon, in a private network namespace")
struct FirewallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path

    @Test(
        "connections blocked, open ones reset, DoH refused, the table restored after tampering, allowlists, a clean ruleset afterwards",
        .enabled(if: FirewallPrerequisites.missing == nil, "\(FirewallPrerequisites.missing ?? "")"))
    func namespaceScenario() throws {
        let result = try ProcessRunner.run(
            Self.repository + "/Tests/Scripts/netns-daemon-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 300)
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}
