import Foundation
import Glibc
import LockCore
import LockEnforcement
import LockStore
import Logging

/// Chooses the enforcers to run, says why each one is (or is not) in use, and builds them
/// through their `EnforcerRegistration`.
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
    /// Where the app enforcer hands launches of counted apps (bound to the allowances later).
    var launches = LaunchInbox()
    /// The imported lists, shared with the dns enforcer.
    var library = BlocklistLibrary()

    /// Firefox switches its default DNS over HTTPS off when this name does not resolve; it is
    /// listed in the hosts section while any block is active.
    static let dohCanary = "use-application-dns.net"

    /// Where the app enforcer records the scopes it froze, so that a restarted daemon thaws
    /// what a killed one froze.
    static func frozenRecord(_ paths: Paths) -> String { paths.stateDirectory + "/frozen-scopes.json" }

    /// The upstream resolvers: the configured ones (checked when the file was read), else the
    /// resolv.conf under the root.
    var servers: DNSResolver.Servers {
        if configuration.resolvers.isEmpty { return .resolvConf(path: paths.resolvConf) }
        return .configured(ResolverConfiguration(servers: configuration.resolvers.map(ResolverConfiguration.Server.init)))
    }

    struct Built {
        var enforcers: [any Enforcer]
        var problems: [String]
        /// Each enforcer considered, and why it is used or not.
        var decisions: [(name: String, used: Bool, reason: String)]

        /// The firewall, when it runs (its addresses are saved and seeded across restarts).
        var firewall: NFTablesEnforcer? { enforcers.lazy.compactMap { $0 as? NFTablesEnforcer }.first }
        /// The DNS filter, when it runs (the site meter counts its answers).
        var dns: DNSFilterEnforcer? { enforcers.lazy.compactMap { $0 as? DNSFilterEnforcer }.first }
        /// The LAN's Unbound, when driven (the group meter counts its logged queries).
        var unbound: UnboundEnforcer? { enforcers.lazy.compactMap { $0 as? UnboundEnforcer }.first }
        /// The app enforcer, when it runs (the watchdog asks whether its guard answers).
        var apps: AppEnforcer? { enforcers.lazy.compactMap { $0 as? AppEnforcer }.first }
    }

    /// Builds the enforcers named with `--enforcers` (`override`), else those of the
    /// configuration, else the default set, each through its `EnforcerRegistration`.
    func build(override: [String]?) -> Built {
        var problems: [String] = []
        var decisions: [(String, Bool, String)] = []
        var names: [String] = []
        let scratchRoot = paths.root != "/"
        let scratchReason = "acts on the whole machine; under --root \(paths.root) it runs only when named with --enforcers"
        if let override {
            names = override
            for name in names { decisions.append((name, true, "named with --enforcers")) }
        } else if let configured = configuration.enforcers {
            for name in configured {
                if scratchRoot, EnforcerKind.named(name)?.machineWide == true {
                    decisions.append((name, false, scratchReason))
                } else {
                    names.append(name)
                    decisions.append((name, true, "enforcers in \(paths.configFile)"))
                }
            }
        } else {
            for registration in EnforcerRegistration.all {
                guard let decide = registration.byDefault else { continue }
                let name = registration.kind.name
                let (used, reason) = scratchRoot && registration.kind.machineWide ? (false, scratchReason) : decide(self)
                if used { names.append(name) }
                decisions.append((name, used, reason))
            }
        }
        // The DNS filter applies just before nftables, so that the forwarder listens by the time
        // the firewall's first commit asks where to send DNS, and the connection check too, so
        // that the firewall knows whether to hand TCP to blocked names' addresses over to it;
        // the rest keep the order they were named in.
        for early in [EnforcerKind.dns.name, EnforcerKind.connections.name] {
            if let index = names.firstIndex(of: early), let firewall = names.firstIndex(of: EnforcerKind.nftables.name),
                index > firewall
            {
                names.remove(at: index)
                names.insert(early, at: firewall)
            }
        }
        var enforcers: [any Enforcer] = []
        var built: [String: any Enforcer] = [:]
        for name in names {
            guard let registration = EnforcerRegistration.named(name) else {
                problems.append("unknown enforcer \(name)")
                continue
            }
            guard built[name] == nil else { continue }
            guard let enforcer = registration.build(self, names, built, &problems) else { continue }
            built[name] = enforcer
            enforcers.append(enforcer)
        }
        for (name, used, reason) in decisions {
            logger.notice(used ? "enforcer active" : "enforcer not used", metadata: ["enforcer": "\(name)", "why": "\(reason)"])
        }
        return Built(enforcers: enforcers, problems: problems, decisions: decisions)
    }

    /// Whether the firewall (and the DNS filter it sends DNS to) belongs in the default set.
    func firewallDecision() -> (used: Bool, reason: String) {
        if let reason = EnforcerFactory.firewallUnavailable() { return (false, "nftables is not usable here: \(reason)") }
        return (true, "nftables is available on this machine")
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
