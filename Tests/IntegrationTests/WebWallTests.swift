import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 24's connection-time name check through the real daemon, in private namespaces.
@Suite("blocked names refused at connection time (TLS SNI, HTTP Host), in private network namespaces")
struct WebWallTests {
    static let missing: String? = TestTools.missing {
        FirewallPrerequisites.missing
            ?? [("curl", "curl"), ("openssl", "openssl"), ("dig", "dnsutils"), ("iptables", "iptables"), ("setpriv", "util-linux")]
            .first { which($0.0) == nil }.map { "\($0.0) is not installed (apt-get install \($0.1))" }
    }
    /// A kernel without nft_compat's xtables NFQUEUE target is no missing tool: the test is
    /// skipped there, in CI too.
    static let kernelUnsupported: String? = TestTools.unsupported { missing == nil ? queueUnavailable() : nil }

    /// The daemon queues through nft_compat's xtables NFQUEUE target, as iptables-nft does:
    /// iptables adding such a rule in a new network namespace tells whether this kernel can.
    static func queueUnavailable() -> String? {
        let arguments = [
            "-n", which("iptables")!, "-w", "-A", "OUTPUT", "-p", "tcp", "-j", "NFQUEUE", "--queue-num", "21324", "--queue-bypass",
        ]
        guard let result = try? ProcessRunner.run(which("unshare")!, arguments), result.status == 0 else {
            return "the kernel cannot queue packets from nftables (nft_compat with xt_NFQUEUE: CONFIG_NFT_COMPAT, "
                + "CONFIG_NETFILTER_XT_TARGET_NFQUEUE)"
        }
        return nil
    }

    @Test(
        "TLS and HTTP naming a blocked name are reset whatever the address, port or resolver, other names on a blocked name's own address work, nameless TCP and UDP to it are refused, HTTP/3 is refused, only first packets are queued, a killed daemon drops only what the firewall handed over, a stopped one leaves the address refused",
        .enabled(if: missing == nil, "\(missing ?? "")"), .enabled(if: kernelUnsupported == nil, "\(kernelUnsupported ?? "")"))
    func namespaceScenario() throws {
        let result = try ProcessRunner.run(
            FirewallTests.repository + "/Tests/Scripts/netns-web-test.sh",
            [Binaries.directory, Binaries.dataDirectory], timeout: 240)
        // The script finds out itself when the kernel refuses the queue rule (77, with its reason).
        if result.status == 77 {
            print("skipped: \(result.stdout.split(separator: "\n").first { $0.hasPrefix("SKIP") } ?? "")")
            return
        }
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(result.status == 0, "\(result)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(result.stdout.contains(" passed, 0 failed"), "\(result.stdout)")
    }
}
