import Foundation
import LockCore
import LockEnforcement
import LockStore
import Logging

/// How each kind of enforcer is built, one entry per kind (what each is, covers, where it is
/// configured and where its attempts come from is its `EnforcerKind`). Adding an enforcer: its
/// type in `LockEnforcement`, its `EnforcerKind`, and an entry here.
struct EnforcerRegistration: Sendable {
    /// The kind it builds.
    let kind: EnforcerKind
    /// Whether it runs when the configuration names no enforcers, and why (nil: only when named).
    let byDefault: (@Sendable (EnforcerFactory) -> (used: Bool, reason: String))?
    /// Builds it, given the names chosen and the enforcers built before it (in `EnforcerKind.all`
    /// order); problems go to `problems`. Nil when it cannot run with the others chosen.
    let build:
        @Sendable (_ factory: EnforcerFactory, _ chosen: [String], _ built: [String: any Enforcer], _ problems: inout [String]) ->
            (any Enforcer)?
}

extension EnforcerRegistration {
    /// Every enforcer the daemon can run.
    static let all: [EnforcerRegistration] = [hosts, dns, connections, nftables, apps, bpf, unbound, dnsmasq]

    /// The registration of `name`, if any.
    static func named(_ name: String) -> EnforcerRegistration? { all.first { $0.kind.name == name } }

    static let hosts = EnforcerRegistration(kind: .hosts, byDefault: { _ in (true, "always") }) { factory, _, _, _ in
        HostsFileEnforcer(
            path: factory.paths.hostsFile, alwaysWithBlock: [EnforcerFactory.dohCanary],
            userCopyPath: factory.paths.stateDirectory + "/hosts.user",
            maxNames: factory.configuration.hostsMaxNames, logger: factory.logger)
    }

    /// The firewall, and the DNS filter the firewall sends the machine's DNS to.
    static let dns = EnforcerRegistration(kind: .dns, byDefault: { $0.firewallDecision() }) { factory, chosen, _, problems in
        if !chosen.contains(EnforcerKind.nftables.name) {
            problems.append("the dns enforcer needs the nftables enforcer to send the machine's DNS through it")
        }
        let attempts = factory.attempts
        return DNSFilterEnforcer(
            settings: DNSForwarder.Settings(port: factory.configuration.dnsPort), servers: factory.servers,
            onBlocked: { attempts.dnsBlocked($0) }, lists: factory.library.resolver,
            redirected: chosen.contains(EnforcerKind.nftables.name), logger: factory.logger)
    }

    /// Its own tables (`ConnectionCheckTables`): it needs no other enforcer; the firewall, when it
    /// runs, hands TCP to blocked names' addresses over to it. On by default where
    /// the kernel takes its queue rule: it costs nothing outside blocks (no table, no reader), and
    /// during them two packets per new connection (scripts/bench-web.sh).
    static let connections = EnforcerRegistration(
        kind: .connections,
        byDefault: { factory in
            let firewall = factory.firewallDecision()
            guard firewall.used else { return firewall }
            if let reason = ConnectionNameEnforcer.queueUnavailable() { return (false, reason) }
            return (true, "the kernel can queue new connections to the daemon (nft_compat, xt_NFQUEUE)")
        }
    ) { factory, _, _, _ in
        let attempts = factory.attempts
        return ConnectionNameEnforcer(
            unavailable: ConnectionNameEnforcer.queueUnavailable(), lists: factory.library.resolver,
            onRefused: { attempts.connectionRefused($0) }, logger: factory.logger)
    }

    static let nftables = EnforcerRegistration(kind: .nftables, byDefault: { $0.firewallDecision() }) { factory, _, built, problems in
        let doh: DoHList
        let listPath = factory.configuration.dohList ?? factory.paths.dataDirectory + "/doh.txt"
        do { doh = try DoHList.load(contentsOf: URL(fileURLWithPath: listPath)) } catch {
            problems.append("\(listPath): \(error); DNS-over-HTTPS endpoints are not blocked")
            doh = DoHList(names: [], addresses: [])
        }
        let dns = built[EnforcerKind.dns.name] as? DNSFilterEnforcer
        var redirect: (@Sendable () -> DNSRedirect?)?
        if let dns { redirect = { dns.redirect } }
        // Its queries carry the filter's mark, so that they reach the real servers; behind a
        // local stub, the stub's own upstreams (learnt by the filter) are asked instead of the
        // stub, whose upstream queries the filter answers for blocked names with 0.0.0.0.
        var learnt: (@Sendable () -> [ResolverConfiguration.Server])?
        if let stubUpstreams = dns?.stubUpstreams { learnt = { stubUpstreams.servers() } }
        let resolver = DNSResolver(
            servers: factory.servers, mark: dns == nil ? nil : DNSForwarder.defaultMark, stubUpstreams: learnt, logger: factory.logger)
        let attempts = factory.attempts
        // The connection check applies first (`EnforcerFactory.build`): by the time the table is
        // committed, it knows whether the check's tables are in force to hand TCP over to.
        let check = built[EnforcerKind.connections.name] as? ConnectionNameEnforcer
        var checkInForce: (@Sendable () -> Bool)?
        if let check { checkInForce = { check.inForce } }
        let enforcer = NFTablesEnforcer(
            resolver: resolver, doh: doh, dnsRedirect: redirect, onBlocked: { attempts.firewallBlocked($0) },
            connectionCheck: checkInForce, logger: factory.logger)
        if let dns {
            dns.setPathReader { await enforcer.dnsPath() }
            enforcer.onCommit { await dns.refreshPath() }
        }
        return enforcer
    }

    static let apps = EnforcerRegistration(kind: .apps, byDefault: { EnforcerFactory.appsDecision($0.configuration.apps) }) {
        factory, _, _, _ in
        let settings = factory.configuration.apps
        var enforcerSettings = AppEnforcer.Settings(
            preference: ExecGuard.Preference(rawValue: settings.mechanism.rawValue) ?? .automatic,
            terminateGrace: settings.terminateGrace, frozenRecord: EnforcerFactory.frozenRecord(factory.paths))
        if let userWritable = settings.userWritable { enforcerSettings.userWritable = userWritable }
        // Under a scratch root (a demo, a test), user-writable mounts are looked for under it only:
        // a filesystem mark is machine-wide, whatever the root.
        if factory.paths.root != "/" { enforcerSettings.mountScope = [factory.paths.root] }
        let attempts = factory.attempts
        let launches = factory.launches
        return AppEnforcer(
            settings: enforcerSettings, logger: factory.logger, onDenial: { attempts.appDenied($0) }, onLaunch: { launches.hand($0) })
    }

    static let bpf = EnforcerRegistration(kind: .bpf, byDefault: nil) { factory, _, _, _ in
        BPFExecEnforcer(
            object: BPFObject.locate(dataDirectory: factory.paths.dataDirectory), pinDirectory: BPFObject.pins(factory.paths),
            logger: factory.logger)
    }

    static let unbound = EnforcerRegistration(kind: .unbound, byDefault: nil) { factory, _, _, _ in
        let lan = factory.configuration.lan.unbound.under(root: factory.paths.root)
        return UnboundEnforcer(
            settings: .init(
                controlPath: lan.control, includePath: lan.include, answerNull: lan.answerNull,
                bulkThreshold: lan.bulkThreshold, logPath: lan.log),
            logger: factory.logger)
    }

    static let dnsmasq = EnforcerRegistration(kind: .dnsmasq, byDefault: nil) { factory, _, _, _ in
        let lan = factory.configuration.lan.dnsmasq.under(root: factory.paths.root)
        return DnsmasqEnforcer(settings: .init(serversFile: lan.serversFile, pidFile: lan.pidFile), logger: factory.logger)
    }
}
