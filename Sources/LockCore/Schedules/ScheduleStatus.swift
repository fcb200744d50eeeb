import Foundation

/// Where a schedule stands at one instant, for `lockctl schedules list` and `show`.
public struct ScheduleStatus: Sendable, Equatable {
    /// The zone its rule is evaluated in now.
    public var zone: TimeZone
    /// Strictness of its blocks (its own setting, else the profile's).
    public var strict: Bool
    /// Warning lead in force (its own, else the daemon's default; zero: none).
    public var warning: Duration
    /// An interval of it contains the instant (and it is enabled).
    public var active: Bool
    /// Active, but its block was stopped by hand; it blocks again at the next interval.
    public var stoppedByHand: Bool
    /// While active: when the block ends (the end of the run of back-to-back intervals).
    public var blockEnd: Date?
    /// The next interval that starts after the current block (or after the instant).
    public var next: DateInterval?
    /// Active and strict, but it became strict during this interval without being asked to
    /// start at once: no strict block until the next interval (`ScheduleRecord.strictDeferred`).
    public var strictDeferred: Bool

    /// Creates a status.
    public init(
        zone: TimeZone, strict: Bool, warning: Duration, active: Bool, stoppedByHand: Bool,
        blockEnd: Date?, next: DateInterval?, strictDeferred: Bool = false
    ) {
        self.strictDeferred = strictDeferred
        self.zone = zone
        self.strict = strict
        self.warning = warning
        self.active = active
        self.stoppedByHand = stoppedByHand
        self.blockEnd = blockEnd
        self.next = next
    }
}
