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

/// Why a launch was refused, as the exec guard reports it and the event stream tells it
/// (`gaming: no launches left today, back at 00:00`, `gaming: cooling down, 42m left`).
public struct OpenRefusal: Sendable, Equatable, Codable {
    /// Which limit.
    public enum Reason: String, Sendable, Codable {
        /// Today's launches are used up.
        case noOpensLeft = "no-opens-left"
        /// Too soon after the last launch.
        case coolingDown = "cooling-down"
    }

    /// The allowance that refused it.
    public var allowance: String
    /// Its profile.
    public var profile: String
    /// Which limit.
    public var reason: Reason
    /// When the app may be launched again (the day's reset, or the end of the cooldown).
    public var until: Date
    /// For a cooldown, the time left.
    public var wait: Duration?

    /// Creates a refusal.
    public init(allowance: String, profile: String, reason: Reason, until: Date, wait: Duration? = nil) {
        self.allowance = allowance
        self.profile = profile
        self.reason = reason
        self.until = until
        self.wait = wait
    }

    /// The refusal `decision` means for `allowance` at `now`, or nil when it allows.
    public init?(_ decision: OpenDecision, allowance: Allowance, now: Date) {
        switch decision {
        case .allowed: return nil
        case .noOpensLeft(let resetsAt):
            self.init(allowance: allowance.name, profile: allowance.profile, reason: .noOpensLeft, until: resetsAt)
        case .coolingDown(let wait):
            self.init(
                allowance: allowance.name, profile: allowance.profile, reason: .coolingDown, until: now.addingTimeInterval(wait.seconds),
                wait: wait)
        }
    }
}

/// The answer to one launch of a counted app.
public enum LaunchVerdict: Sendable, Equatable {
    /// It may run; it was counted.
    case allowed
    /// It may not.
    case refused(OpenRefusal)
}

extension AllowanceLedger {
    /// Launches left today (nil when the allowance limits none).
    public func opensLeft(_ allowance: Allowance) -> Int? {
        allowance.opens.map { max(0, $0 - opensToday) }
    }

    /// The cooldown still to wait at `now` (nil when none). Call after `advance`.
    public func cooldownLeft(_ allowance: Allowance, at now: ClockReading, in zone: TimeZone) -> Duration? {
        guard allowance.cooldown != nil else { return nil }
        var unlimited = allowance
        unlimited.opens = nil
        if case .coolingDown(let wait) = mayOpen(unlimited, at: now, in: zone) { return wait }
        return nil
    }
}
