import Foundation
import LockCore
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Blocks at the firewall what the hosts file cannot: browsers using DNS-over-HTTPS,
/// hard-coded addresses, and connections that were already open.
///
/// Owns one nftables table, `inet simplylock`, and nothing else: sets of blocked IPv4/IPv6
/// addresses (a hash set for single addresses, an interval set for CIDR ranges), DoH endpoints,
/// the resolvers in use, and in allowlist mode the allowed addresses; chains on the output and
/// forward hooks that reject (TCP reset, ICMP administratively prohibited) every packet to a
/// blocked address, new connections and established ones alike. Each apply replaces every rule
/// and element in one kernel transaction (see `NFTablesRuleset.script`), and the table is
/// deleted when nothing is blocked. While the connection check is in force, new TCP connections
/// to blocked names' addresses are handed over to it instead (`NFTablesRuleset.connectionHandoff`),
/// so that other sites on those addresses keep working.
///
/// Names are resolved by `resolver` (real DNS, never /etc/hosts) at every apply and every
/// `Settings.reresolveInterval` while `watch()` runs; addresses stay blocked for
/// `Settings.grace` after they were last seen, so rotation never opens a gap.
public final class NFTablesEnforcer: Enforcer {
    public let name = "nftables"

    private let settings: Settings
    private let controller: NFTablesController
    private let committer: NFTablesCommitter
    private let logger: Logger
    /// Told after commits that may have created the table or its redirect (`onCommit`).
    private let commitObserver = Mutex<(@Sendable () async -> Void)?>(nil)

    /// Creates the enforcer. Nothing is touched until the first `apply`.
    ///
    /// - Parameters:
    ///   - resolver: resolves blocked, allowed and DoH names; `DNSResolver` in the daemon.
    ///   - doh: DoH endpoints blocked while any block is active; normally the shipped `doh.txt` from the data directory.
    ///   - backend: runs the nft scripts; `LibNFTables` in the daemon.
    ///   - settings: table name and timings.
    ///   - dnsRedirect: asked at every commit where the DNS filter listens (nil while it does
    ///     not, or must not be on the machine's DNS path); while it answers, blocks redirect
    ///     outgoing DNS there and refuse DNS over TLS.
    ///   - onBlocked: told of refused connection attempts to blocked addresses, per name: each
    ///     as it happens while the NFLOG group can be read (on its reader's thread), else the
    ///     counters' increase every `Settings.counterInterval`. Keep it short.
    ///   - connectionCheck: asked at every commit whether the connection check is in force
    ///     (`ConnectionNameEnforcer.inForce`); while it is, TCP to blocked names' addresses is
    ///     handed over to it (`NFTablesRuleset.connectionHandoff`). It must apply before this.
    public convenience init(
        resolver: any NameResolver = DNSResolver(), doh: DoHList,
        backend: any NFTablesBackend = LibNFTables(), settings: Settings = Settings(),
        dnsRedirect: (@Sendable () -> DNSRedirect?)? = nil,
        onBlocked: (@Sendable (FirewallAttempt) -> Void)? = nil,
        connectionCheck: (@Sendable () -> Bool)? = nil,
        logger: Logger = Logger(label: "simplylock.nftables")
    ) {
        self.init(
            resolver: resolver, doh: doh, backend: backend, settings: settings, dnsRedirect: dnsRedirect,
            onBlocked: onBlocked, connectionCheck: connectionCheck, logger: logger, bootClock: NFTablesEnforcer.bootTimeNow)
    }

    /// Tests inject the boot clock to move time for the grace period.
    init(
        resolver: any NameResolver, doh: DoHList, backend: any NFTablesBackend, settings: Settings,
        dnsRedirect: (@Sendable () -> DNSRedirect?)? = nil, onBlocked: (@Sendable (FirewallAttempt) -> Void)? = nil,
        connectionCheck: (@Sendable () -> Bool)? = nil, logger: Logger, bootClock: @escaping @Sendable () -> BootTime
    ) {
        self.settings = settings
        self.logger = logger
        self.committer = NFTablesCommitter(backend: backend, tracksGeneration: backend is LibNFTables)
        self.controller = NFTablesController(
            table: settings.table, resolver: resolver, doh: doh, committer: committer,
            grace: settings.grace, dnsRedirect: dnsRedirect, connectionCheck: connectionCheck, logger: logger, bootClock: bootClock,
            attempts: settings.countAttempts ? onBlocked : nil, logGroup: backend is LibNFTables ? settings.logGroup : nil)
    }

    /// The NFLOG group attempts are sent to by default ("SL").
    public static let defaultLogGroup: UInt16 = 0x534C

    /// Replaces the table with what `desired` needs (or deletes it when `desired` is empty).
    ///
    /// Commits once immediately with the addresses already known, then resolves every name
    /// (bounded by the resolver's deadline) and commits again if anything changed. Resolution
    /// failures do not throw: they keep earlier addresses and show in `report()`.
    ///
    /// - Throws: `NFTablesError` when nft rejects a commit; the previous table then stays as it
    ///   was (a transaction is all or nothing).
    public func apply(_ desired: DesiredBlock) async throws {
        try await controller.apply(desired)
        await committed()
    }

    /// Calls `observer` after every apply, redirect change and restore: the DNS filter takes
    /// its first look at the exemption counters right after the table (re)appears, before
    /// anyone can borrow much unseen.
    public func onCommit(_ observer: @escaping @Sendable () async -> Void) {
        commitObserver.withLock { $0 = observer }
    }

    private func committed() async {
        if let observer = commitObserver.withLock({ $0 }) { await observer() }
    }

    /// Asks `dnsRedirect` again and commits when the answer changed (the DNS filter's site meter
    /// began or stopped needing the machine's DNS while nothing is blocked).
    public func redirectChanged() async {
        await controller.redirectChanged()
        await committed()
    }

    /// Counts the bytes to and from `names`' addresses (resolved like blocked names) in a named
    /// counter per name while the table exists, for a block or for the site meter's DNS redirect.
    public func meter(_ names: [String]) async { await controller.meter(names) }

    /// Bytes counted per metered name so far (totals, both directions); empty while the table
    /// holds no byte counters.
    public func meterBytes() async -> [String: UInt64] { await controller.meterBytes() }

    /// Resolves the names of the last apply now, if the watch loop has not yet, and commits
    /// the addresses (tests, benchmarks).
    public func settle() async { await controller.resolvePending() }

    /// Restores the table within a second or two when someone else deletes or changes it, and
    /// re-resolves names every `Settings.reresolveInterval` (every
    /// `Settings.failureRetryInterval` while some names fail). Runs until cancelled.
    public func watch() async {
        let (changes, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let committer = self.committer
        let monitor = NFTablesMonitor(
            table: settings.table, pollInterval: settings.generationPollInterval,
            forcePolling: settings.forceGenerationPolling,
            expectedGeneration: { committer.expectedGeneration },
            onForeignChange: { continuation.yield($0) })
        committer.attach(monitor)
        monitor.start()
        await controller.setWatchMethod(monitor.method.rawValue)
        logger.info("watching the nftables table", metadata: ["method": "\(monitor.method.rawValue)"])

        // Changes made while nobody was watching (before the daemon started its watch) are not
        // announced any more; a generation that moved since the last commit might be one.
        if await controller.hasApplied, let expected = committer.expectedGeneration,
            let current = try? NFTablesMonitor.currentGeneration(), current != expected
        {
            continuation.yield("ruleset changed while not watched")
        }

        let controller = self.controller
        let settings = self.settings
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in controller.resolutionRequests { await controller.resolvePending() }
            }
            group.addTask {
                for await reason in changes {
                    try? await Task.sleep(for: settings.restoreDelay)
                    if Task.isCancelled { break }
                    await controller.restore(reason: reason)
                    await self.committed()
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: settings.counterInterval)) != nil { await controller.readCounters() }
            }
            group.addTask {
                // Looked at every retry interval, not slept through: names that begin failing
                // after a long sleep began (a block started later) are asked again in time.
                let tick = min(settings.failureRetryInterval, settings.reresolveInterval)
                var last = ContinuousClock.now
                while !Task.isCancelled {
                    do { try await Task.sleep(for: tick) } catch { break }
                    guard await controller.hasResolutionFailures || ContinuousClock.now - last >= settings.reresolveInterval else {
                        continue
                    }
                    await controller.refresh()
                    last = ContinuousClock.now
                }
            }
            await group.waitForAll()
        }
        monitor.stop()
        committer.attach(nil)
        continuation.finish()
        await controller.setWatchMethod("not running")
    }

    /// The NFLOG reader's thread stops with the daemon (the monitor stopped with the watch).
    public func shutdown() async { await controller.stopAttemptReader() }

    /// The addresses currently known for each resolved name, for the daemon to save, so that
    /// after a reboot the block can be in force before DNS is reachable (`seed`).
    public func knownAddresses() async -> [String: [IPNetwork]] {
        await controller.knownAddresses()
    }

    /// Adds saved addresses (from `knownAddresses()` before a reboot) as if they had just been
    /// resolved; they then age out through the grace period like any other. Call before the
    /// first `apply`: only names of the desired state are kept by it.
    public func seed(_ known: [String: [IPNetwork]]) async {
        await controller.seed(known)
    }

    public func status() async -> EnforcerStatus {
        await controller.status()
    }

    public func coverage(of name: String) async -> Coverage? {
        await controller.coverage(of: name)
    }

    public var scope: EnforcerScope? {
        EnforcerScope(
            covers: "the resolved addresses of exact blocked names, for every program, DNS over HTTPS and open connections included",
            misses:
                "names under a blocked one resolve to addresses of their own (the dns enforcer covers them); imported lists are not resolved"
        )
    }

    /// Reads the attempt counters now and reports their increase (tests; the watch loop does
    /// it every `Settings.counterInterval`). Returns packets per counted name since the block began.
    @discardableResult
    public func readCounters() async -> [String: UInt64] {
        await controller.readCounters()
    }

    /// The kernel's view of the DNS filter's path (exemption counters, other tables' NAT
    /// chains ahead of the redirect); nil while the table in force redirects no DNS.
    public func dnsPath() async -> DNSPathReport? {
        guard let redirect = await controller.committedRedirect else { return nil }
        return await NFTablesDNSPath.read(committer: committer, table: settings.table, counted: redirect.mark != nil)
    }

    /// The ruleset the enforcer would commit now (for `lockctl doctor` and tests).
    public func currentRuleset() async -> NFTablesRuleset {
        await controller.currentRuleset()
    }

    /// `CLOCK_BOOTTIME`: keeps counting in suspend and cannot be set, so the grace period
    /// cannot be cut short by moving the wall clock.
    @Sendable static func bootTimeNow() -> BootTime {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return BootTime(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}
