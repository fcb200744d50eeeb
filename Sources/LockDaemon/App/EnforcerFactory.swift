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

    /// Firefox switches its default DNS over HTTPS off when this name does not resolve; it is
    /// listed in the hosts section while any block is active.
    static let dohCanary = "use-application-dns.net"

    /// Enforcers that change the whole machine, not files under the root.
    static let machineWide: Set<String> = ["nftables"]

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
            if scratchRoot {
                decisions.append(("nftables", false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
            } else if let reason = EnforcerFactory.firewallUnavailable() {
                decisions.append(("nftables", false, "not usable here: \(reason)"))
            } else {
                names.append("nftables")
                decisions.append(("nftables", true, "available on this machine"))
            }
        }
        var enforcers: [any Enforcer] = []
        var firewall: NFTablesEnforcer?
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
                let servers: DNSResolver.Servers
                if configuration.resolvers.isEmpty {
                    servers = .resolvConf(path: paths.resolvConf)
                } else {
                    servers = .configured(ResolverConfiguration(
                        servers: configuration.resolvers.compactMap { try? ResolverConfiguration.Server(parsing: $0) }))
                }
                let enforcer = NFTablesEnforcer(resolver: DNSResolver(servers: servers, logger: logger), doh: doh, logger: logger)
                enforcers.append(enforcer)
                firewall = enforcer
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
