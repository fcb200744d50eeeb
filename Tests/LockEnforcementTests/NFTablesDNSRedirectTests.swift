import Foundation
import Glibc
import LockCore
import TestSupport
import Testing

@testable import LockEnforcement

/// The ruleset's redirect of DNS to the local filter (and its exemptions).
extension NFTablesRulesetTests {
    private var redirect: DNSRedirect { DNSRedirect(port: 10053, mark: 0x534C) }

    @Test func dnsRedirectWhileBlocking() {
        let desired = DesiredBlock(domains: ["blocked.example"])
        let ruleset = NFTablesRuleset(
            desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
            dnsRedirect: redirect)
        #expect(ruleset.dnsRedirect == redirect)
        let script = ruleset.script
        #expect(
            script.contains(
                """
                \tchain enforce {
                \t}
                \tchain dnsredirect {
                \t\ttype nat hook output priority -199; policy accept;
                \t}
                \tcounter exemptudp {
                \t}
                \tcounter exempttcp {
                \t}
                }

                """))
        #expect(
            script.hasSuffix(
                """
                \tchain dnsredirect {
                \t\tmeta l4proto tcp th dport 53 socket mark 0x534c counter name exempttcp return
                \t\tsocket mark 0x534c return
                \t\tfib daddr type local return
                \t\tmeta l4proto { tcp, udp } th dport 53 redirect to :10053
                \t}
                }

                """))
        // Every marked datagram to port 53 is counted first in the output chain, whoever sent it.
        #expect(
            script.contains(
                "\tchain output {\n\t\tmeta l4proto udp th dport 53 socket mark 0x534c counter name exemptudp\n\t\tjump enforce\n"))
        // DoT is refused before DNS to the resolvers is let through: the resolvers are reachable
        // on 53 only while the filter is in the path.
        let rules = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let dot = rules.firstIndex(of: "meta l4proto tcp th dport 853 reject with tcp reset")
        let resolvers = rules.firstIndex { $0.hasPrefix("ip daddr @resolvers4") }
        #expect(dot != nil && resolvers != nil && dot! < resolvers!)
        #expect(rules.contains("meta l4proto udp th dport 853 reject with icmpx admin-prohibited"))
        #expect(
            ruleset.elementCount
                == NFTablesRuleset(desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")]).elementCount)
    }

    @Test func noRedirectWithoutABlockOrWithoutTheFilter() {
        let off = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: redirect)
        #expect(off.dnsRedirect == nil)
        #expect(off.script == "table inet simplylock\ndelete table inet simplylock\n")
        let plain = NFTablesRuleset(desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [])
        #expect(!plain.script.contains("nat"))
        #expect(!plain.script.contains("redirect"))
        #expect(!plain.script.contains("dport 853 reject"))
        let unmarked = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [],
            dnsRedirect: DNSRedirect(port: 5353, mark: nil))
        #expect(!unmarked.script.contains("mark"))
        #expect(!unmarked.script.contains("counter exempt"), "nothing is exempted, nothing to count")
        #expect(unmarked.script.contains("redirect to :5353"))
    }

    @Test func theSiteMeterKeepsTheRedirectAloneWhileNothingIsBlocked() {
        let metering = DNSRedirect(port: 10053, mark: 0x534C, metering: true)
        let ruleset = NFTablesRuleset(desired: .empty, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")], dnsRedirect: metering)
        #expect(ruleset.mode == .meter)
        #expect(ruleset.dnsRedirect == metering)
        #expect(ruleset.elementCount == 1, "the resolvers only")
        let script = ruleset.script
        #expect(script.contains("redirect to :10053"))
        #expect(!script.contains("dport 853 reject"), "nothing is blocked: DNS over TLS is not refused either")
        #expect(!script.contains("add element inet simplylock doh"), "no DoH endpoint is refused")
        #expect(!script.contains("queue"), "no connection check")
        // While something is blocked the metering redirect is the block's.
        let blocking = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: metering)
        #expect(blocking.mode == .blocklist && blocking.script.contains("dport 853 reject"))
    }

    @Test(
        "the rendered scripts pass nft's check against the kernel",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelAcceptsTheScripts() throws {
        let blocklist = DesiredBlock(domains: ["blocked.example"], addresses: [net("192.0.2.0/24"), net("2001:db8:1::/48")])
        let allowlist = DesiredBlock(allowOnly: AllowList(domains: ["allowed.example"], addresses: [net("2001:db8::/32")]))
        for desired in [blocklist, allowlist] {
            for dnsRedirect in [redirect, DNSRedirect(port: 1053, mark: nil), nil] {
                let ruleset = NFTablesRuleset(
                    desired: desired, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
                    dnsRedirect: dnsRedirect)
                for script in [ruleset.script, ruleset.replacementScript] {
                    let result = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
                    #expect(result.status == 0, "\(result)\n\(script)")
                }
            }
        }
        // Twice in a row, as the daemon commits: the in-place update of an existing table,
        // from a ruleset without the redirect to one with it and back.
        let meter = NFTablesRuleset(
            desired: .empty, resolved: lookUp, doh: doh, nameservers: [net("192.0.2.53")],
            dnsRedirect: DNSRedirect(port: 10053, mark: 0x534C, metering: true))
        for script in [meter.script, meter.replacementScript] {
            let result = try KernelCheck.run(script: script, [KernelCheck.which("nft")!, "-c", "-f", "{}"])
            #expect(result.status == 0, "\(result)\n\(script)")
        }
        let first = NFTablesRuleset(desired: blocklist, resolved: lookUp, doh: doh, nameservers: [])
        let second = NFTablesRuleset(desired: blocklist, resolved: lookUp, doh: doh, nameservers: [], dnsRedirect: redirect)
        let result = try KernelCheck.run(
            script: first.script + second.script + first.script,
            [KernelCheck.which("nft")!, "-f", "{}"])
        #expect(result.status == 0, "\(result)")
    }

    @Test(
        "in the kernel, the redirect sends plain DNS to the filter, lets the filter's own queries out (not packets another table marks), and refuses DoT",
        .enabled(if: KernelCheck.missing == nil, "\(KernelCheck.missing ?? "")"))
    func kernelRedirectsDNS() throws {
        let ruleset = NFTablesRuleset(
            desired: DesiredBlock(domains: ["blocked.example"]), resolved: lookUp, doh: .none,
            nameservers: [net("192.0.2.53")], dnsRedirect: redirect)
        let result = try KernelCheck.run(
            script: ruleset.script,
            [
                KernelCheck.which("python3")!, KernelCheck.repository + "/Tests/Scripts/dns-redirect-check.py", "{}", "10053", "0x534c",
            ])
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("not ok"), "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok - ") }.count == 8, "\(result.stdout)")
    }
}
