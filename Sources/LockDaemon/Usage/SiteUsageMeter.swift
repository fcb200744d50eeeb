import Foundation
import LockCore
import LockEnforcement
import Logging
import ServiceLifecycle

/// Meters the time sites are in use from the queries the DNS filter answers for them
/// (`UsageMeter.dns`): every name of every blocklist profile and of every catalog service is
/// metered, blocked or not, under the most specific such name (`site:youtube.com`). A site is
/// in use from a sampling stretch in which a query for it was answered from upstream until a
/// minute after (`QueryActivity`); blocked answers are not use.
///
/// The filter sees the machine's DNS while it is redirected there: during blocks, and while an
/// allowance counts time on this machine, when this meter keeps the redirect (without a
/// block, the nftables table then holds the redirect alone). At shutdown it lets go of the
/// redirect, so the machine's DNS never waits for a stopped daemon because of metering.
///
/// Sampling: every `idleInterval` (a minute) while no site is in use, every `busyInterval`
/// (10 s) while one is. The names are read again every idle interval.
public struct SiteUsageMeter: ServiceLifecycle.Service {
    let dns: DNSFilterEnforcer
    let firewall: NFTablesEnforcer?
    let profiles: ProfileService
    let allowances: AllowanceOwner
    let recorder: UsageRecorder
    let clock: @Sendable () -> ClockReading
    let idleInterval: Duration
    let busyInterval: Duration
    let keepAlive: Duration
    let logger: Logger

    /// A meter of the DNS filter's answers reporting to `recorder`.
    public init(
        dns: DNSFilterEnforcer, firewall: NFTablesEnforcer?, profiles: ProfileService, allowances: AllowanceOwner,
        recorder: UsageRecorder, clock: @escaping @Sendable () -> ClockReading, idleInterval: Duration = .seconds(60),
        busyInterval: Duration = .seconds(10), keepAlive: Duration = .seconds(60), logger: Logger
    ) {
        self.dns = dns
        self.firewall = firewall
        self.profiles = profiles
        self.allowances = allowances
        self.recorder = recorder
        self.clock = clock
        self.idleInterval = idleInterval
        self.busyInterval = busyInterval
        self.keepAlive = keepAlive
        self.logger = logger
    }

    /// What the meter last told the DNS filter.
    struct Watched: Equatable {
        var names: [String] = []
        var redirect = false
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var activity = QueryActivity(keepAlive: keepAlive)
            var watched = Watched()
            var namesRead: BootTime?
            while !Task.isCancelled {
                let now = clock()
                if namesRead.map({ $0 > now.boot || now.boot - $0 >= idleInterval }) ?? true {
                    watched = await watch(watched)
                    namesRead = now.boot
                }
                let inUse = activity.observe(await dns.takeMeterCounts(), at: now)
                await recorder.report(inUse, kind: .site, meter: .dns, at: now)
                try await Task.sleep(for: activity.isActive ? busyInterval : idleInterval)
            }
        }
        // Before the enforcers stop: a table left redirecting DNS to a stopped daemon would cut
        // the machine off (a block's table stays; that is the block's business).
        await dns.meter([], redirect: false)
        await firewall?.redirectChanged()
        await recorder.flush()
    }

    /// Tells the DNS filter the names to meter now, and the firewall whether to keep the
    /// redirect for them, when that changed. Returns what it was told.
    private func watch(_ previous: Watched) async -> Watched {
        let wanted = Watched(names: await Self.meteredNames(profiles), redirect: await allowances.countsOnThisMachine())
        guard wanted != previous else { return previous }
        await dns.meter(wanted.names, redirect: wanted.redirect)
        if wanted.redirect != previous.redirect { await firewall?.redirectChanged() }
        logger.debug("site meter watches names", metadata: ["names": "\(wanted.names.count)", "redirect": "\(wanted.redirect)"])
        return wanted
    }

    /// Every name a blocklist profile or a catalog service lists.
    static func meteredNames(_ profiles: ProfileService) async -> [String] {
        var names = Set<String>()
        for expansion in await profiles.all() where expansion.rules.mode == .blocklist {
            expansion.rules.block.forEach { names.insert($0) }
        }
        let catalog = await profiles.catalog
        for service in catalog.services.values { names.formUnion(service.domains.map(\.value)) }
        return names.sorted()
    }
}
