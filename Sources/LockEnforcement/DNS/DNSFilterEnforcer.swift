import CLinux
import Foundation
import LockCore
import Logging
import Synchronization

/// Blocks names with all their subdomains through a filtering DNS forwarder (`DNSForwarder`):
/// the only local mechanism that covers `m.reddit.com` when `reddit.com` is blocked.
///
/// `apply` builds a `DNSFilterPolicy` from the desired state's rules and swaps it in; queries
/// keep being answered with the previous policy until then, and sessions whose rules did not
/// change keep their sets. The forwarder keeps running when nothing is blocked: with no rule it
/// forwards everything, and a connection the kernel still redirects after a block ended is
/// answered rather than dropped.
///
/// The machine's DNS reaches the forwarder through the nftables enforcer's redirect, which asks
/// `redirect` at every commit. It is nil, and the machine's DNS left alone, while the forwarder
/// does not listen, and while its upstream servers include a loopback address: a local resolver
/// (dnsmasq, unbound, systemd-resolved's stub when its upstream list is missing) would have
/// its own upstream queries redirected back to the forwarder, a loop.
public actor DNSFilterEnforcer: Enforcer {
    public nonisolated let name = "dns"

    /// The port the daemon's DNS filter listens on by default (loopback only).
    public static let defaultPort: UInt16 = 10053

    private let forwarder: DNSForwarder
    private let resolver: DNSResolver
    /// The upstream servers of the machine's local stub resolver, learnt from its redirected
    /// queries; the firewall resolves blocked names through them (see `StubUpstreams`).
    public nonisolated let stubUpstreams = StubUpstreams()
    /// Other processes whose sockets carry the exemption mark (nil: no mark is set).
    nonisolated let borrowers: MarkBorrowers?
    /// What the daemon sent with the mark, and the kernel's count compared with it.
    nonisolated let ledger: ExemptionLedger?
    var exemptionAccount = ExemptionAccount()
    /// Asks the nftables enforcer about the redirect's path (`setPathReader`).
    nonisolated let pathReader = Mutex<(@Sendable () async -> DNSPathReport?)?>(nil)
    /// Other tables' NAT chains ahead of the redirect, as last read.
    var rivals: [String] = []
    /// Why the path could not be read, as last tried.
    var pathProblem: String?
    /// The path read in progress (`refreshPath`).
    var pathCheck: Task<Void, Never>?
    private let settings: DNSForwarder.Settings
    private let refreshInterval: Duration
    private let logger: Logger
    private nonisolated let redirectState: Mutex<DNSRedirect?> = Mutex(nil)
    private let resolveList: @Sendable (BlocklistReference) -> Blocklist?
    /// False when nothing sends the machine's DNS here (the nftables enforcer does not run).
    private let redirected: Bool

    private var desired: DesiredBlock?
    private var lastApplied: Date?
    private var lastError: String?
    private var lastBuild: Duration?
    private var upstreamProblem: String?
    /// The machine's resolvers on loopback (a local stub), as last read.
    private var configuredStubs: [ResolverConfiguration.Server] = []
    /// Whether the site meter wants the machine's DNS while nothing is blocked.
    private var metering = false

    /// Creates the enforcer; the forwarder starts at `start()` or the first `apply`.
    ///
    /// - Parameters:
    ///   - settings: the forwarder's settings (port, mark, timeouts).
    ///   - servers: where the upstream servers come from, as for the nftables resolver.
    ///   - systemdUpstreamPath: systemd-resolved's upstream list, used when resolv.conf names only its stub.
    ///   - refreshInterval: how often `watch()` re-reads the upstream servers.
    ///   - onBlocked: told of every blocked answer (on the forwarder's thread; keep it short).
    ///   - lists: finds the loaded imported lists the sessions hold (the daemon's one copy of each).
    ///   - redirected: whether the nftables enforcer sends the machine's DNS here during blocks.
    public init(
        settings: DNSForwarder.Settings = DNSForwarder.Settings(port: DNSFilterEnforcer.defaultPort),
        servers: DNSResolver.Servers = .resolvConf(path: "/etc/resolv.conf"),
        systemdUpstreamPath: String = "/run/systemd/resolve/resolv.conf",
        refreshInterval: Duration = .seconds(30),
        onBlocked: (@Sendable (DNSBlockedQuery) -> Void)? = nil,
        lists: @escaping @Sendable (BlocklistReference) -> Blocklist? = { _ in nil },
        redirected: Bool = true,
        logger: Logger = Logger(label: "simplylock.dns-filter")
    ) {
        self.resolveList = lists
        self.redirected = redirected
        self.borrowers = settings.mark.map { MarkBorrowers(mark: $0) }
        self.ledger = ExemptionLedger.of(mark: settings.mark)
        self.settings = settings
        self.resolver = DNSResolver(servers: servers, systemdUpstreamPath: systemdUpstreamPath, logger: logger)
        self.refreshInterval = refreshInterval
        self.logger = logger
        self.forwarder = DNSForwarder(
            settings: settings, upstream: resolver.configuration(), onBlocked: onBlocked, stubUpstreams: stubUpstreams, logger: logger)
    }

    /// Where the nftables redirect should send the machine's DNS during blocks; nil while the
    /// forwarder does not listen or must not be on the DNS path (see the type's description).
    public nonisolated var redirect: DNSRedirect? { redirectState.withLock { $0 } }

    /// Starts the forwarder if it is not running. Returns its port.
    @discardableResult
    public func start() async throws -> UInt16 {
        if let port = forwarder.port { return port }
        do {
            let port = try await forwarder.start()
            refreshUpstream()
            return port
        } catch {
            lastError = "\(error)"
            throw error
        }
    }

    /// Stops the forwarder (the redirect goes with it at the next nftables commit).
    public func stop() async {
        redirectState.withLock { $0 = nil }
        forwarder.setRedirected(false)
        await forwarder.stop()
    }

    /// The forwarder's sockets and thread stop with the daemon.
    public func shutdown() async { await stop() }

    /// Puts the rules of `desired` in force. Idempotent; a state equal to the last one costs a
    /// comparison.
    ///
    /// - Throws: `DNSForwarderError` when the forwarder cannot listen (port taken, no
    ///   CAP_NET_ADMIN for the socket mark); nothing changes then.
    public func apply(_ desired: DesiredBlock) async throws {
        try await start()
        refreshUpstream()
        guard desired != self.desired else { return }
        let started = ContinuousClock.now
        let previous = forwarder.policy
        let policy = DNSFilterPolicy(desired, resolve: resolveList, reusing: previous, seed: UInt64.random(in: .min ... .max))
        if !policy.missingLists.isEmpty {
            logger.error(
                "blocks hold imported lists that are not loaded; they block nothing",
                metadata: [
                    "lists": "\(policy.missingLists.map(\.description))"
                ])
        }
        let releasesMemory = previous.allocatedBytes > 1 << 20
        forwarder.setPolicy(policy)
        if releasesMemory {
            // Freed chunks of a large policy would otherwise stay in the heap until reused.
            malloc_trim(0)
        }
        self.desired = desired
        lastBuild = ContinuousClock.now - started
        lastApplied = Date()
        lastError = nil
        logger.debug(
            "DNS filter policy applied",
            metadata: [
                "names": "\(policy.nameCount)", "bytes": "\(policy.allocatedBytes)", "duration": "\(lastBuild!)",
            ])
    }

    /// Re-reads the upstream servers every `refreshInterval` (DHCP and VPN change them), and
    /// logs when another process starts carrying the exemption mark.
    public func watch() async {
        var reported: String?
        // The exemption counters are read more often than sockets are listed: a first look
        // soon after the redirect appears leaves little for a borrower to hide in.
        let step = min(refreshInterval, .seconds(5))
        var sinceRefresh = Duration.zero
        while !Task.isCancelled {
            do { try await Task.sleep(for: step) } catch { break }
            sinceRefresh += step
            guard sinceRefresh >= refreshInterval else {
                await refreshPath()
                continue
            }
            sinceRefresh = .zero
            if forwarder.port != nil { refreshUpstream() }
            let borrowed = await bypassed()
            if let borrowed, borrowed != reported { logger.error("the DNS filter is bypassed", metadata: ["why": "\(borrowed)"]) }
            reported = borrowed
        }
    }

    public func status() async -> EnforcerStatus {
        let statistics = await forwarder.statistics()
        let policy = forwarder.policy
        var details: [String: EnforcerStatus.Detail] = [
            "port": forwarder.port.map { .count(Int($0)) } ?? .text("not listening"),
            "upstream": .text(forwarder.upstream.servers.map(\.description).joined(separator: " ")),
            "redirectedQueriesGo": .text(
                forwarder.followsOriginalDestination
                    ? "to the server each was sent to"
                    : "to the upstream servers above (\(forwarder.originalDestinationProblem ?? "not started"))"),
            "toOriginalDestination": .count(statistics.toOriginalDestination),
            "redirect": .text(redirect.map { "port \($0.port)" } ?? "none"),
            "policyBytes": .count(policy.allocatedBytes),
            "queries": .count(statistics.queries),
            "blocked": .count(statistics.blocked),
            "forwarded": .count(statistics.forwarded),
            "fromCache": .count(statistics.fromCache),
            "cacheEntries": .count(statistics.cacheEntries),
            "failed": .count(statistics.failed),
            "upstreamTimeouts": .count(statistics.upstreamTimeouts),
            "tcpFallbacks": .count(statistics.tcpFallbacks),
            "inFlight": .count(statistics.inFlight),
            "covers": .text("each blocked name and every name under it, for programs using the machine's DNS"),
        ]
        let stubs = configuredStubs
        if !stubs.isEmpty {
            let learnt = stubUpstreams.servers()
            details["stubUpstreams"] = .text(
                learnt.isEmpty
                    ? "none learnt yet from \(stubs.map(\.description).joined(separator: " "))"
                        + (stubUpstreams.problem.map { " (\($0))" } ?? "")
                    : learnt.map(\.description).joined(separator: " "))
        }
        let held = policy.heldLists
        if !held.isEmpty { details["lists"] = .text(held.map(\.description).joined(separator: " ")) }
        if !policy.missingLists.isEmpty { details["listsMissing"] = .text(policy.missingLists.map(\.description).joined(separator: " ")) }
        if let lastBuild { details["buildSeconds"] = .seconds(lastBuild.seconds) }
        if let upstreamProblem { details["problem"] = .text(upstreamProblem) }
        let borrowed = await bypassed()
        if let borrowed { details["bypassed"] = .text(borrowed) }
        if let counts = exemptionAccount.counts { details["exemptedDNS"] = .text(counts) }
        return EnforcerStatus(
            name: name, applied: desired != nil && lastError == nil && forwarder.port != nil && borrowed == nil,
            elements: policy.nameCount, lastApplied: lastApplied,
            lastError: lastError ?? upstreamProblem ?? borrowed, details: details)
    }

    public nonisolated var scope: EnforcerScope? {
        EnforcerScope(
            covers: "each blocked name and every name under it, imported lists included, for programs using the machine's DNS",
            misses: "browsers using DNS over HTTPS (the nftables enforcer refuses known endpoints) and answers already cached by programs")
    }

    public func coverage(of name: String) async -> Coverage? {
        guard forwarder.port != nil else {
            return .doesNotCover("the DNS filter is not listening" + (lastError.map { ": \($0)" } ?? ""))
        }
        let policy = forwarder.policy
        guard let (rule, list) = policy.explain(name) else {
            return .doesNotCover(
                policy.isEmpty
                    ? "nothing is blocked: queries are forwarded"
                    : "no rule blocks it (or an exception keeps it reachable): it is forwarded")
        }
        let source = list.map { " of list \($0.name) (version \($0.version))" } ?? ""
        guard redirected else {
            return .doesNotCover(
                "rule \(rule)\(source) would block it, but nothing sends the machine's DNS to the filter: "
                    + "the dns enforcer needs the nftables enforcer")
        }
        if let upstreamProblem { return .doesNotCover("rule \(rule)\(source) would block it, but \(upstreamProblem)") }
        if let borrowed = await bypassed() { return .doesNotCover("rule \(rule)\(source) would block it, but \(borrowed)") }
        return .blocks("rule \(rule)\(source): answered 0.0.0.0 and :: for it and every name under it")
    }

    /// Counts answered queries for `names` and every name under them (the site meter) from now
    /// on; `redirect`: keep the machine's DNS coming here while nothing is blocked, so that
    /// unblocked sites are counted too (the nftables enforcer commits it at `redirectChanged`).
    public func meter(_ names: [String], redirect: Bool) async {
        forwarder.setMetered(DomainSuffixSet(names))
        metering = redirect && !names.isEmpty
        if metering { _ = try? await start() }
        refreshUpstream()
    }

    /// Answered queries per metered name since the last call.
    public func takeMeterCounts() async -> [String: Int] { await forwarder.takeMeterCounts() }

    /// Takes the servers from resolv.conf (or the configuration) again and decides whether the
    /// forwarder may be on the machine's DNS path.
    private func refreshUpstream() {
        let configuration = resolver.configuration()
        if configuration.servers != forwarder.upstream.servers {
            forwarder.setUpstream(configuration)
            logger.info("DNS filter upstream servers", metadata: ["servers": "\(configuration.servers.map(\.description))"])
        }
        // A redirected query goes to the server it was sent to, so a local stub (dnsmasq on
        // 127.0.1.1, resolved on 127.0.0.53) keeps its place in the chain: its own upstream
        // queries come through the filter and go on to its upstream. Only when conntrack
        // cannot say where a query was going would they be sent back to the stub, a loop.
        configuredStubs = configuration.servers.filter(\.isLoopback)
        stubUpstreams.setStubs(forwarder.followsOriginalDestination ? configuredStubs : [])
        let loopback = forwarder.followsOriginalDestination ? [] : configuredStubs
        let problem: String? =
            loopback.isEmpty
            ? nil
            : """
            the DNS filter's upstream \(loopback.map(\.description).joined(separator: ", ")) is on this machine \
            and \(forwarder.originalDestinationProblem ?? "the forwarder is not running"): its own queries would be \
            redirected back to the filter, so the machine's DNS is not redirected: \
            set resolvers = [...] in simplylockd.toml to the real upstream servers
            """
        if problem != upstreamProblem, let problem { logger.warning("\(problem)") }
        upstreamProblem = problem
        let redirect = problem == nil ? forwarder.port.map { DNSRedirect(port: $0, mark: settings.mark, metering: metering) } : nil
        redirectState.withLock { $0 = redirect }
        forwarder.setRedirected(redirect != nil)
    }
}
