import Foundation
import Glibc
import TestSupport
import Testing

/// Issue 24's connection-time name check through the real daemon, in private namespaces.
@Suite("blocked names refused at connection time (TLS SNI, HTTP Host), in private network namespaces")
struct WebWallTests {
    static let missing: String? = TestTools.missing {
        FirewallPrerequisites.missing
            ?? ["curl", "openssl", "dig"].first { which($0) == nil }.map {
                "\($0) is not installed (apt-get install curl openssl dnsutils)"
            }
    }
    /// A kernel without nft_queue is no missing tool: the test is skipped there, in CI too.
    static let kernelUnsupported: String? = TestTools.unsupported { missing == nil ? queueUnavailable() : nil }

    /// The kernel must let an nftables rule queue packets to a program (nft_queue).
    static func queueUnavailable() -> String? {
        let rule = """
            table inet probe {
                chain output {
                    type filter hook output priority filter; policy accept;
                    meta l4proto tcp ct original packets 2-24 queue num 21324 bypass
                }
            }
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("queue-probe-\(UUID().uuidString).nft")
        guard (try? rule.write(to: file, atomically: true, encoding: .utf8)) != nil else { return "cannot write a temporary file" }
        defer { try? FileManager.default.removeItem(at: file) }
        guard let result = try? ProcessRunner.run(which("unshare")!, ["-n", which("nft")!, "-c", "-f", file.path]), result.status == 0
        else {
            return "the kernel cannot queue packets from nftables (nft_queue, CONFIG_NFT_QUEUE, is missing)"
        }
        return nil
    }

    @Test(
        "TLS and HTTP naming a blocked name are reset whatever the address, other names on it work, HTTP/3 is refused, a killed daemon cuts nothing",
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
