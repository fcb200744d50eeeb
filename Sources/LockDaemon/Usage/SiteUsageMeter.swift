import Foundation
import LockCore
import LockEnforcement
import Logging

/// Meters the time sites are in use from what the enforcers see of them: the queries the DNS
/// filter answers for them (`UsageMeter.dns`), and the bytes the firewall counts to and from
/// their addresses (`UsageMeter.firewall`), combined by `SiteActivity` so that each stretch of
/// each site counts once. Every name of every blocklist profile and of every catalog service is
/// metered, blocked or not, under the most specific such name (`site:youtube.com`). A site is in
/// use from a sampling stretch in which a query for it was answered from upstream, or in which
/// its addresses moved at least `SiteActivity.defaultThreshold` bytes a minute, until a minute
/// after; blocked answers and refused packets are not use.
///
/// Both see the machine's traffic while the nftables table exists: during blocks, and while an
/// allowance counts time on this machine, when this meter keeps the DNS redirect (without a
/// block, the table then holds the redirect and the byte counters alone). At shutdown it lets go
/// of the redirect, so the machine's DNS never waits for a stopped daemon because of metering.
///
/// Sampled by `UsageSampler`: every minute while no site is in use, every 10 s while one is. The
/// names are read again every `namesInterval`.
actor SiteUsageMeter: UsageSource {
    let dns: DNSFilterEnforcer
    let firewall: NFTablesEnforcer?
    let profiles: ProfileService
    let allowances: AllowanceOwner
    let recorder: UsageRecorder
    let namesInterval: Duration
    let logger: Logger
    private var activity: SiteActivity
    private var watched = Watched()
    private var namesRead: BootTime?

    /// A meter of the DNS filter's answers and the firewall's byte counters reporting to `recorder`.
    init(
        dns: DNSFilterEnforcer, firewall: NFTablesEnforcer?, profiles: ProfileService, allowances: AllowanceOwner,
        recorder: UsageRecorder, namesInterval: Duration = .seconds(60), keepAlive: Duration = .seconds(60),
        threshold: UInt64 = SiteActivity.defaultThreshold, logger: Logger
    ) {
        self.dns = dns
        self.firewall = firewall
        self.profiles = profiles
        self.allowances = allowances
        self.recorder = recorder
        self.namesInterval = namesInterval
        self.activity = SiteActivity(keepAlive: keepAlive, threshold: threshold)
        self.logger = logger
    }

    /// What the meter last told the DNS filter.
    struct Watched: Equatable {
        var names: [String] = []
        var redirect = false
    }

    func sample(at now: ClockReading) async -> Bool {
        if namesRead.map({ $0 > now.boot || now.boot - $0 >= namesInterval }) ?? true {
            watched = await watch(watched)
            namesRead = now.boot
        }
        let queries = await dns.takeMeterCounts()
        let bytes = await firewall?.meterBytes() ?? [:]
        let inUse = activity.observe(queries: queries, bytes: bytes, at: now)
        let samples = inUse.map {
            UsageSample(item: UsageItem(.site, $0.key), meter: $0.value.meter, end: now.wall, seconds: $0.value.duration.seconds)
        }
        await recorder.report(
            samples, inUse: Dictionary(uniqueKeysWithValues: inUse.map { (UsageItem(.site, $0.key), $0.value.duration) }), at: now)
        return activity.isActive
    }

    /// Before the enforcers stop: a table left redirecting DNS to a stopped daemon would cut the
    /// machine off (a block's table stays; that is the block's business).
    func finish() async {
        await dns.meter([], redirect: false)
        await firewall?.redirectChanged()
    }

    /// Tells the DNS filter the names to meter now, and the firewall whether to keep the
    /// redirect for them, when that changed. Returns what it was told.
    private func watch(_ previous: Watched) async -> Watched {
        let wanted = Watched(names: await Self.meteredNames(profiles), redirect: await allowances.countsOnThisMachine())
        guard wanted != previous else { return previous }
        await dns.meter(wanted.names, redirect: wanted.redirect)
        // The names first: a redirect committed with them needs no second commit.
        if wanted.names != previous.names { await firewall?.meter(wanted.names) }
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
