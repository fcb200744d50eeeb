/// Combines the two network meters of sites into one time in use per site, so that the same
/// stretch of the same site is counted once: the DNS filter's answered queries (`UsageMeter.dns`)
/// and the firewall's byte counters per name (`UsageMeter.firewall`).
///
/// A site is seen in a sampling stretch when the filter answered a query for it, or when its
/// addresses moved at least `threshold` bytes a minute (both directions, pro-rated to the
/// stretch: a tenth of a minute needs a tenth of it). From the sightings, `QueryActivity`'s rule
/// gives the time in use. The stretch is credited to the firewall when its bytes were seen, else
/// to DNS when a query was; the keep-alive after the last sighting goes to the meter of that
/// sighting. Bytes are what keep a site counted without queries: a video streaming from an
/// address the browser cached counts every minute it streams.
///
/// Counters are read as totals (the kernel's counters only grow): the first reading of a name,
/// and the first after a reboot, only sets where it starts; a total smaller than before is a
/// counter made anew (the table was recreated) and counts from zero.
public struct SiteActivity: Sendable {
    /// Bytes a minute below which a site's traffic is not use: above keep-alives, HTTP/2 pings
    /// and an idle tab's polling (typically well under 10 KiB a minute), below any page load
    /// (hundreds of KiB) or stream (128 kbit/s audio is about 940 KiB a minute).
    public static let defaultThreshold: UInt64 = 32 * 1024

    /// A site's time in use in one stretch, and the meter it is credited to.
    public struct Use: Sendable, Equatable {
        public var duration: Duration
        public var meter: UsageMeter

        public init(_ duration: Duration, _ meter: UsageMeter) {
            self.duration = duration
            self.meter = meter
        }
    }

    /// Bytes a minute that make a site's traffic count as use.
    public let threshold: UInt64
    private var activity: QueryActivity
    private var totals: [String: UInt64] = [:]
    private var lastMeter: [String: UsageMeter] = [:]
    private var last: ClockReading?

    /// Creates an empty tracker.
    public init(keepAlive: Duration = .seconds(60), threshold: UInt64 = defaultThreshold) {
        self.activity = QueryActivity(keepAlive: keepAlive)
        self.threshold = threshold
    }

    /// True while some site counts as in use (the meters are sampled faster then).
    public var isActive: Bool { activity.isActive }

    /// Takes the queries answered per site since the last call and the firewall's byte totals
    /// per site now; returns each site's time in use in the stretch ending at `now`.
    public mutating func observe(queries: [String: Int], bytes: [String: UInt64], at now: ClockReading) -> [String: Use] {
        let comparable = last.map { $0.bootID == now.bootID && now.boot > $0.boot } ?? false
        let stretch = comparable ? (now.boot - last!.boot).seconds : 0
        defer { last = now }
        var moved: Set<String> = []
        for (name, total) in bytes {
            guard comparable, let before = totals[name] else { continue }
            let grown = total >= before ? total - before : total
            // `grown / stretch` bytes a second against `threshold / 60`, without dividing.
            if Double(grown) * 60 >= Double(threshold) * stretch { moved.insert(name) }
        }
        totals = bytes
        var seen: [String: Int] = [:]
        for (name, count) in queries where count > 0 {
            seen[name] = count
            lastMeter[name] = .dns
        }
        for name in moved {
            seen[name, default: 0] += 1
            lastMeter[name] = .firewall
        }
        let inUse = activity.observe(seen, at: now)
        var result: [String: Use] = [:]
        for (name, duration) in inUse where duration > .zero { result[name] = Use(duration, lastMeter[name] ?? .dns) }
        lastMeter = lastMeter.filter { inUse[$0.key] != nil || seen[$0.key] != nil }
        return result
    }
}
