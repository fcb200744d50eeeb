import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockStore
import Logging

/// Builds the enforcers to run and says why each one is (or is not) in use.
///
/// Under `--root` other than `/`, the daemon manages files under that root only: enforcers that
/// act on the whole machine (the nftables firewall, the DNS filter, app blocking) run only when
/// named with `--enforcers`, so a demo or a test in a scratch root never touches the machine's
/// ruleset or anyone's programs by default.
struct EnforcerFactory {
    let paths: Paths
    let configuration: DaemonConfiguration
    let logger: Logger
    /// Where each enforcer's blocked attempts go (the DNS filter's blocked answers, the
    /// firewall's refused connections, the app enforcer's denied execs: `attempts.appDenied`).
    let attempts: AttemptInbox
    /// The imported lists, shared with the dns enforcer.
    var library = BlocklistLibrary()

    /// Firefox switches its default DNS over HTTPS off when this name does not resolve; it is
    /// listed in the hosts section while any block is active.
    static let dohCanary = "use-application-dns.net"

    /// Enforcers that change the whole machine, not files under the root.
    static let machineWide: Set<String> = ["nftables", "dns", "connections", "apps", "bpf", "unbound", "dnsmasq"]

    /// Where the app enforcer records the scopes it froze, so that a restarted daemon thaws
    /// what a killed one froze.
    static func frozenRecord(_ paths: Paths) -> String { paths.stateDirectory + "/frozen-scopes.json" }

    struct Built {
        var enforcers: [any Enforcer]
        var firewall: NFTablesEnforcer?
        var apps: AppEnforcer?
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
                    decisions.append(
                        (name, false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
                } else {
                    names.append(name)
                    decisions.append((name, true, "enforcers in \(paths.configFile)"))
                }
            }
        } else {
            names = ["hosts"]
            decisions.append(("hosts", true, "always"))
            // The firewall, and the DNS filter the firewall sends the machine's DNS to. The
            // connection-time name check is named in `enforcers` for now: its namespace test
            // (Tests/Scripts/netns-web-test.sh) has not yet run on a kernel with nft_queue.
            decisions.append(("connections", false, "not on by default yet: add connections to enforcers (needs nft_queue)"))
            for name in ["nftables", "dns"] {
                if scratchRoot {
                    decisions.append(
                        (name, false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
                } else if let reason = EnforcerFactory.firewallUnavailable() {
                    decisions.append((name, false, "nftables is not usable here: \(reason)"))
                } else {
                    names.append(name)
                    decisions.append((name, true, "nftables is available on this machine"))
                }
            }
            if scratchRoot {
                decisions.append(
                    ("apps", false, "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"))
            } else {
                let (used, reason) = EnforcerFactory.appsDecision(configuration.apps)
                if used { names.append("apps") }
                decisions.append(("apps", used, reason))
            }
        }
        var enforcers: [any Enforcer] = []
        var firewall: NFTablesEnforcer?
        var apps: AppEnforcer?
        let servers: DNSResolver.Servers
        if configuration.resolvers.isEmpty {
            servers = .resolvConf(path: paths.resolvConf)
        } else {
            servers = .configured(
                ResolverConfiguration(
                    servers: configuration.resolvers.compactMap { try? ResolverConfiguration.Server(parsing: $0) }))
        }
        // The DNS filter applies before nftables, so that its forwarder listens by the time the
        // firewall's first commit asks where to redirect DNS.
        let attempts = self.attempts
        let dns =
            names.contains("dns")
            ? DNSFilterEnforcer(
                settings: DNSForwarder.Settings(port: configuration.dnsPort), servers: servers,
                onBlocked: { attempts.dnsBlocked($0) }, lists: library.resolver, redirected: names.contains("nftables"),
                logger: logger) : nil
        // Like the DNS filter, it reads its queue before the firewall's first commit asks.
        let connections =
            names.contains("connections") && names.contains("nftables")
            ? ConnectionNameEnforcer(unavailable: EnforcerFactory.connectionQueueUnavailable(), lists: library.resolver, logger: logger)
            : nil
        if names.contains("connections"), connections == nil {
            problems.append("the connections enforcer needs the nftables enforcer to queue new connections to it")
        }
        for name in names {
            switch name {
            case "connections":
                break
            case "hosts":
                enforcers.append(
                    HostsFileEnforcer(
                        path: paths.hostsFile, alwaysWithBlock: [EnforcerFactory.dohCanary],
                        userCopyPath: paths.stateDirectory + "/hosts.user",
                        maxNames: configuration.hostsMaxNames, logger: logger))
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
                var connectionCheck: (@Sendable () -> ConnectionCheck?)?
                if let connections { connectionCheck = { connections.check } }
                let enforcer = NFTablesEnforcer(
                    resolver: resolver, doh: doh, dnsRedirect: redirect,
                    onBlocked: { attempts.firewallBlocked($0) }, connectionCheck: connectionCheck, logger: logger)
                if let dns { enforcers.append(dns) }
                if let connections { enforcers.append(connections) }
                enforcers.append(enforcer)
                firewall = enforcer
            case "dns":
                if !names.contains("nftables") {
                    enforcers.append(dns!)
                    problems.append("the dns enforcer needs the nftables enforcer to send the machine's DNS through it")
                }
            case "apps":
                let settings = configuration.apps
                var enforcerSettings = AppEnforcer.Settings(
                    preference: ExecGuard.Preference(rawValue: settings.mechanism.rawValue) ?? .automatic,
                    terminateGrace: settings.terminateGrace, frozenRecord: EnforcerFactory.frozenRecord(paths))
                if let userWritable = settings.userWritable { enforcerSettings.userWritable = userWritable }
                let enforcer = AppEnforcer(settings: enforcerSettings, logger: logger, onDenial: { attempts.appDenied($0) })
                enforcers.append(enforcer)
                apps = enforcer
            case "bpf":
                enforcers.append(
                    BPFExecEnforcer(
                        object: BPFObject.locate(dataDirectory: paths.dataDirectory), pinDirectory: BPFObject.pins(paths), logger: logger))
            case "unbound":
                let lan = configuration.lan.unbound.under(root: paths.root)
                enforcers.append(
                    UnboundEnforcer(
                        settings: .init(
                            controlPath: lan.control, includePath: lan.include,
                            answerNull: lan.answerNull, bulkThreshold: lan.bulkThreshold,
                            logPath: lan.log),
                        logger: logger))
            case "dnsmasq":
                let lan = configuration.lan.dnsmasq.under(root: paths.root)
                enforcers.append(DnsmasqEnforcer(settings: .init(serversFile: lan.serversFile, pidFile: lan.pidFile), logger: logger))
            default:
                problems.append("unknown enforcer \(name)")
            }
        }
        for (name, used, reason) in decisions {
            logger.notice(used ? "enforcer active" : "enforcer not used", metadata: ["enforcer": "\(name)", "why": "\(reason)"])
        }
        return Built(enforcers: enforcers, firewall: firewall, apps: apps, problems: problems, decisions: decisions)
    }

    /// Whether the app enforcer belongs in the default set here, and why: as root, with a
    /// mechanism the kernel lets this process use (fanotify, else the proc connector).
    static func appsDecision(_ settings: AppsSection.Settings) -> (used: Bool, reason: String) {
        guard geteuid() == 0 else { return (false, "blocking apps needs root") }
        let preference = ExecGuard.Preference(rawValue: settings.mechanism.rawValue) ?? .automatic
        switch ExecGuard.availability(preference: preference) {
        case (.fanotify?, _):
            return (true, "fanotify permission events are available")
        case (.procConnector?, let reason):
            return (true, "the proc connector is available (fanotify is not: \(reason ?? "not chosen"))")
        case (nil, let reason):
            return (false, "neither fanotify nor the proc connector can be used: \(reason ?? "unknown")")
        }
    }

    /// Whether the daemon flushes the machine's resolver caches: only when it acts on the whole
    /// machine (the real root, or a scratch root with the dns enforcer named), never for a
    /// demo or test under a scratch root.
    func flushesResolverCaches(override: [String]?) -> Bool {
        paths.root == "/" || override?.contains("dns") == true
    }

    /// Nil when the kernel can queue packets to the daemon from an nftables rule, else why not:
    /// checked against the kernel without committing anything.
    static func connectionQueueUnavailable() -> String? {
        let probe = """
            table inet simplylock_probe {
            	chain output {
            		type filter hook output priority filter; policy accept;
            		meta l4proto tcp ct original packets 2-24 queue num \(ConnectionNameEnforcer.defaultQueue) bypass
            	}
            }
            """
        do {
            _ = try LibNFTables(dryRun: true).run(probe)
            return nil
        } catch {
            return "the kernel cannot queue packets to programs from nftables (nft_queue, CONFIG_NFT_QUEUE, is missing?): \(error)"
        }
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
