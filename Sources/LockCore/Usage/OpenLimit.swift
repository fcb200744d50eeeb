import Foundation

/// Whether an allowance's app may be launched now (`--opens N` a day, `--cooldown D` between
/// launches).
public enum OpenDecision: Sendable, Equatable {
    /// It may.
    case allowed
    /// Today's launches are used up; they come back at `resetsAt`.
    case noOpensLeft(resetsAt: Date)
    /// Too soon after the last launch; `wait` more.
    case coolingDown(wait: Duration)
}

extension AllowanceLedger {
    /// Whether a launch of one of `allowance`'s apps may go ahead at `now`. Call after `advance`.
    ///
    /// The cooldown is measured on the boot clock; across a reboot on the wall clock when it is
    /// synchronised, else it starts over (time off counts nothing).
    public func mayOpen(_ allowance: Allowance, at now: ClockReading, in zone: TimeZone) -> OpenDecision {
        guard allowance.applies(on: day, in: zone) else { return .allowed }
        if let opens = allowance.opens, opensToday >= opens { return .noOpensLeft(resetsAt: day.end) }
        if let cooldown = allowance.cooldown, let last = lastOpen {
            let elapsed: Duration =
                if last.bootID == now.bootID {
                    now.boot - last.boot
                } else if now.wallIsSynchronised {
                    Duration.checkedSeconds(max(0, now.wall.timeIntervalSince(last.wall))) ?? .zero
                } else {
                    .zero
                }
            if elapsed < cooldown { return .coolingDown(wait: cooldown - max(.zero, elapsed)) }
        }
        return .allowed
    }

    /// Records a launch that was allowed.
    public mutating func recordOpen(at now: ClockReading, in zone: TimeZone) {
        advance(to: now, in: zone)
        opensToday += 1
        lastOpen = OpenStamp(boot: now.boot, bootID: now.bootID, wall: now.wall)
    }
}
