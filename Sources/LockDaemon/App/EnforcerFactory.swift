import Foundation
import LockCore
import LockEnforcement
import LockStore
import Logging

/// Builds the enforcers to run and says why each one is (or is not) in use.
///
/// Under `--root` other than `/`, the daemon manages files under that root only: enforcers that
/// act on the whole machine (the nftables firewall) run only when named with `--enforcers`, so
/// a demo or a test in a scratch root never touches the machine's ruleset by default.
struct EnforcerFactory {
    let paths: Paths
    let configuration: DaemonConfiguration
    let logger: Logger
    /// Where each enforcer's blocked attempts go (the DNS filter's blocked answers, the
    /// firewall's refused connections, the app enforcer's denied execs: `attempts.appDenied`).
    let attempts: AttemptInbox

    /// Firefox switches its default DNS over HTTPS off when this name does not resolve; it is
    /// listed in the hosts section while any block is active.
    static let dohCanary = "use-application-dns.net"

    /// Enforcers that change the whole machine, not files under the root.
    static let machineWide: Set<String> = ["nftables", "dns"]

    struct Built {
        var enforcers: [any Enforcer]
        var firewall: NFTablesEnforcer?
        var problems: [String]
        /// Each enforcer considered, and why it is used or not.
        var decisions: [(name: String, used: Bool, reason: String)]
    }

    func build(override: [String]?) -> Built {
        var problems: [String] = []
        var decisions: [(String, Bool, String)] = []
        var names: [String]
        let scratchRoot = paths.root != "/"
        if let override {
            names = override
            for name in names { decisions.append((name, true, "named with --enforcers")) }
        } else if let configured = configuration.enforcers {
            names = []
            for name in configured {
                if scratchRoot, Self.machineWide.contains(name) {
                    decisions.append((name, false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
                } else {
                    names.append(name)
                    decisions.append((name, true, "enforcers in \(paths.configFile)"))
                }
            }
        } else {
            names = ["hosts"]
            decisions.append(("hosts", true, "always"))
            // The firewall, and the DNS filter the firewall sends the machine's DNS to.
            for name in ["nftables", "dns"] {
                if scratchRoot {
                    decisions.append((name, false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
                } else if let reason = EnforcerFactory.firewallUnavailable() {
                    decisions.append((name, false, "nftables is not usable here: \(reason)"))
                } else {
                    names.append(name)
                    decisions.append((name, true, "nftables is available on this machine"))
                }
            }
        }
        var enforcers: [any Enforcer] = []
        var firewall: NFTablesEnforcer?
        let servers: DNSResolver.Servers
        if configuration.resolvers.isEmpty {
            servers = .resolvConf(path: paths.resolvConf)
        } else {
            servers = .configured(ResolverConfiguration(
                servers: configuration.resolvers.compactMap { try? ResolverConfiguration.Server(parsing: $0) }))
        }
        // The DNS filter applies before nftables, so that its forwarder listens by the time the
        // firewall's first commit asks where to redirect DNS.
        let attempts = self.attempts
        let dns = names.contains("dns")
            ? DNSFilterEnforcer(servers: servers, onBlocked: { attempts.dnsBlocked($0) }, logger: logger) : nil
        for name in names {
            switch name {
            case "hosts":
                enforcers.append(HostsFileEnforcer(path: paths.hostsFile, alwaysWithBlock: [EnforcerFactory.dohCanary],
                                                   userCopyPath: paths.stateDirectory + "/hosts.user", logger: logger))
            case "nftables":
                let doh: DoHList
                let listPath = configuration.dohList ?? paths.dataDirectory + "/doh.txt"
                do { doh = try DoHList.load(contentsOf: URL(fileURLWithPath: listPath)) } catch {
                    problems.append("\(listPath): \(error); DNS-over-HTTPS endpoints are not blocked")
                    doh = DoHList(names: [], addresses: [])
                }
                var redirect: (@Sendable () -> DNSRedirect?)?
                if let dns { redirect = { dns.redirect } }
                // Its queries carry the filter's mark, so that they reach the real servers.
                let resolver = DNSResolver(servers: servers, mark: dns == nil ? nil : DNSForwarder.defaultMark, logger: logger)
                let enforcer = NFTablesEnforcer(resolver: resolver, doh: doh, dnsRedirect: redirect,
                                                onBlocked: { attempts.firewallBlocked($0) }, logger: logger)
                if let dns { enforcers.append(dns) }
                enforcers.append(enforcer)
                firewall = enforcer
            case "dns":
                if !names.contains("nftables") {
                    enforcers.append(dns!)
                    problems.append("the dns enforcer needs the nftables enforcer to send the machine's DNS through it")
                }
            default:
                problems.append("unknown enforcer \(name)")
            }
        }
        for (name, used, reason) in decisions {
            logger.notice(used ? "enforcer active" : "enforcer not used", metadata: ["enforcer": "\(name)", "why": "\(reason)"])
        }
        return Built(enforcers: enforcers, firewall: firewall, problems: problems, decisions: decisions)
    }

    /// Nil when nftables can be used here, else why not (no permission, no kernel support).
    static func firewallUnavailable() -> String? {
        do {
            _ = try LibNFTables().run("list tables")
            return nil
        } catch {
            return "\(error)"
        }
    }
}
