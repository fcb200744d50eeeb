import Foundation

/// How much of an allowance is used: the time its items were in use this day and this week
/// (measured by meters on the boot clock), the launches of its apps today, and the warnings
/// already given. Saved at every checkpoint; restored after restarts and reboots.
///
/// Time only ever accumulates within a period and is only cleared when the period ends by
/// `AllowancePeriod`'s rule, so moving the wall clock in either direction gives no time back.
/// Time used after the last checkpoint before a crash or power loss is lost (at most one
/// metering interval).
public struct AllowanceLedger: Sendable, Equatable, Codable {
    /// Today.
    public var day: AllowancePeriod
    /// This week.
    public var week: AllowancePeriod
    /// Time used today.
    public var usedToday: Duration = .zero
    /// Time used this week.
    public var usedThisWeek: Duration = .zero
    /// Whether today's (or this week's) warning went out.
    public var warnedToday = false
    public var warnedThisWeek = false
    /// Launches of its apps today.
    public var opensToday = 0
    /// The last launch, on the boot clock and the wall clock.
    public var lastOpen: OpenStamp?
    /// The wall clock at the last update.
    public var checkpointWall: Date

    /// A launch's time.
    public struct OpenStamp: Sendable, Equatable, Codable {
        public var boot: BootTime
        public var bootID: String
        public var wall: Date
    }

    /// A fresh ledger at `now`.
    public init(now: ClockReading, in zone: TimeZone) {
        day = .containing(now, .day, in: zone)
        week = .containing(now, .week, in: zone)
        checkpointWall = now.wall
    }

    /// Moves to the periods in force at `now`, clearing what a period that ended held.
    /// Returns whether today's and this week's periods ended.
    @discardableResult
    public mutating func advance(to now: ClockReading, in zone: TimeZone) -> (day: Bool, week: Bool) {
        let (newDay, dayReset) = day.advanced(to: now, checkpointWall: checkpointWall, in: zone)
        let (newWeek, weekReset) = week.advanced(to: now, checkpointWall: checkpointWall, in: zone)
        day = newDay
        week = newWeek
        if dayReset {
            usedToday = .zero
            warnedToday = false
            opensToday = 0
        }
        if weekReset {
            usedThisWeek = .zero
            warnedThisWeek = false
        }
        checkpointWall = now.wall
        return (dayReset, weekReset)
    }

    /// Adds `inUse`, the time any of the allowance's items was in use since the meter's last
    /// report, as of `now`, when `allowance` applies today; returns what to announce. Negative
    /// or non-finite amounts count nothing.
    public mutating func record(_ inUse: Duration, for allowance: Allowance, at now: ClockReading, in zone: TimeZone) -> [AllowanceNotice] {
        let (oldDay, oldWeek) = (day, week)
        let reset = advance(to: now, in: zone)
        guard allowance.applies(on: day, in: zone), inUse > .zero else { return [] }
        // Of a stretch that began in the previous period, only the part since it ended counts.
        func counted(_ reset: Bool, _ old: AllowancePeriod) -> Duration {
            guard reset, old.bootID == now.bootID else { return inUse }
            return min(inUse, max(.zero, now.boot - old.endBoot))
        }
        let wasUsedUp = isUsedUp(allowance)
        usedToday += counted(reset.day, oldDay)
        usedThisWeek += counted(reset.week, oldWeek)
        var notices: [AllowanceNotice] = []
        if !wasUsedUp, isUsedUp(allowance) {
            notices.append(.usedUp)
            return notices
        }
        if let warn = allowance.warn, let left = left(of: allowance), left <= warn, !(warnedToday && warnedThisWeek) {
            let dailyWarns = allowance.daily.map { $0 - usedToday <= warn } ?? false
            if dailyWarns ? !warnedToday : !warnedThisWeek {
                if dailyWarns { warnedToday = true } else { warnedThisWeek = true }
                notices.append(.warning(left: left))
            }
        }
        return notices
    }

    /// The time left before the allowance is used up (the smaller of today's and this week's),
    /// or nil when it limits no time.
    public func left(of allowance: Allowance) -> Duration? {
        let daily = allowance.daily.map { max(.zero, $0 - usedToday) }
        let weekly = allowance.weekly.map { max(.zero, $0 - usedThisWeek) }
        switch (daily, weekly) {
        case (let d?, let w?): return min(d, w)
        case (let d?, nil): return d
        case (nil, let w?): return w
        case (nil, nil): return nil
        }
    }

    /// Whether today's or this week's time is used up.
    public func isUsedUp(_ allowance: Allowance) -> Bool { left(of: allowance) == .zero }

    /// The block the allowance owns at `now`: its profile until the period that is used up
    /// ends (the week's when the weekly time is used up), or nil. Call after `advance`.
    public func desiredBlock(_ allowance: Allowance, at now: ClockReading, in zone: TimeZone) -> OwnedSession? {
        let weekUsedUp = allowance.weekly.map { usedThisWeek >= $0 } ?? false
        let dayUsedUp = allowance.daily.map { usedToday >= $0 } ?? false
        guard weekUsedUp || dayUsedUp else { return nil }
        let period = weekUsedUp ? week : day
        let remaining = period.endBoot - now.boot
        guard remaining > .zero else { return nil }
        return OwnedSession(profile: allowance.profile, remaining: remaining, strict: allowance.strict, target: allowance.target)
    }

    /// When the allowance's time comes back: the end of the period that limits it.
    public func resetsAt(_ allowance: Allowance) -> Date {
        if let weekly = allowance.weekly, usedThisWeek >= weekly { return week.end }
        // Launches (`opens`) come back daily; only a weekly time alone resets with the week.
        return allowance.daily == nil && allowance.weekly != nil ? week.end : day.end
    }
}

/// What an allowance announces on the event stream.
public enum AllowanceNotice: Sendable, Equatable {
    /// `left` remains (at most the allowance's `warn`).
    case warning(left: Duration)
    /// The time is used up: a block of its profile starts.
    case usedUp
}

extension Allowance {
    /// Whether it counts and limits on the local day `day`.
    public func applies(on day: AllowancePeriod, in zone: TimeZone) -> Bool {
        let calendar = Calendar.gregorian(in: zone)
        let iso = (calendar.component(.weekday, from: day.start) + 5) % 7 + 1
        return Weekday(rawValue: iso).map(days.contains) ?? true
    }
}
