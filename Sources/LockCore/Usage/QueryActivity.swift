/// Turns what a network meter saw per site in each sampling stretch (answered DNS queries,
/// bytes to the site's addresses) into the time each site was in use.
///
/// The rule: a site is in use from a stretch in which it was seen until `keepAlive` after the
/// end of the last such stretch. A stretch in which it was seen counts whole when the site was
/// already in use at its start, else half (when in the stretch it began is not known: the
/// expected value, so the error is at most half a sampling interval). Once seen no more, the
/// keep-alive window counts up to its end. Browsers ask DNS again about once a minute while a
/// page keeps loading (Firefox and Chrome keep answers 60 s), so a 60 s window bridges the
/// gaps of a site in use and stops counting a minute after it went quiet.
public struct QueryActivity: Sendable {
    /// How long a site counts as in use after it was last seen.
    public let keepAlive: Duration
    /// When each site in use was last seen (the end of that stretch).
    private var lastSeen: [String: BootTime] = [:]
    private var last: ClockReading?

    /// Creates an empty tracker.
    public init(keepAlive: Duration = .seconds(60)) { self.keepAlive = keepAlive }

    /// True while some site counts as in use (the meter samples faster then).
    public var isActive: Bool { !lastSeen.isEmpty }

    /// Takes what was seen per site (`seen[name] > 0`) in the stretch since the last call,
    /// ending at `now`; returns each site's time in use in that stretch. The first stretch, and
    /// one across a reboot, only starts the count.
    public mutating func observe(_ seen: [String: Int], at now: ClockReading) -> [String: Duration] {
        defer { last = now }
        guard let last, last.bootID == now.bootID, now.boot > last.boot else {
            lastSeen = [:]
            for (name, count) in seen where count > 0 { lastSeen[name] = now.boot }
            return [:]
        }
        let stretch = now.boot - last.boot
        var inUse: [String: Duration] = [:]
        for (name, seenAt) in lastSeen where seen[name, default: 0] <= 0 {
            let until = seenAt + keepAlive
            if until > last.boot { inUse[name] = min(stretch, until - last.boot) }
            if until <= now.boot { lastSeen[name] = nil }
        }
        for (name, count) in seen where count > 0 {
            let wasInUse = lastSeen[name].map { last.boot - $0 < keepAlive } ?? false
            inUse[name] = wasInUse ? stretch : stretch / 2
            lastSeen[name] = now.boot
        }
        return inUse
    }
}
