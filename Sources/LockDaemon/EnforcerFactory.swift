import Foundation
import LockCore
import LockEnforcement
import LockStore
import Logging

/// Builds the enforcers the configuration asks for: the hosts file always, nftables when
/// configured or, by default, when the kernel lets this process use it.
struct EnforcerFactory {
    let paths: Paths
    let configuration: DaemonConfiguration
    let logger: Logger

    /// Firefox switches its default DNS over HTTPS off when this name does not resolve; it is
    /// listed in the hosts section while any block is active.
    static let dohCanary = "use-application-dns.net"

    struct Built {
        var enforcers: [any Enforcer]
        var firewall: NFTablesEnforcer?
        var problems: [String]
    }

    func build(override: [String]?) -> Built {
        var problems: [String] = []
        var names = override ?? configuration.enforcers ?? ["hosts"]
        if override == nil, configuration.enforcers == nil {
            if let reason = EnforcerFactory.firewallUnavailable() {
                logger.notice("nftables enforcer not used", metadata: ["reason": "\(reason)"])
            } else {
                names.append("nftables")
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
        let dns = names.contains("dns") ? DNSFilterEnforcer(servers: servers, logger: logger) : nil
        for name in names {
            switch name {
            case "hosts":
                enforcers.append(HostsFileEnforcer(path: paths.hostsFile, alwaysWithBlock: [EnforcerFactory.dohCanary], logger: logger))
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
                let enforcer = NFTablesEnforcer(resolver: resolver, doh: doh, dnsRedirect: redirect, logger: logger)
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
        return Built(enforcers: enforcers, firewall: firewall, problems: problems)
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
