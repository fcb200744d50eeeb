import Foundation

/// One period of an allowance (a local day, or a week from Monday's local midnight), with the
/// boot-clock reading at which it ends.
///
/// The period ends when the boot clock says so, not the wall clock: moving the wall clock
/// forward does not start a fresh period, and moving it back does not return to an old one.
/// Only across a reboot (boot-clock readings of different boots cannot be compared) is the wall
/// clock consulted, and then only when it is synchronised, as for sessions.
public struct AllowancePeriod: Sendable, Equatable, Codable {
    /// Daily or weekly.
    public enum Length: String, Sendable, Codable { case day, week }

    /// Daily or weekly.
    public var length: Length
    /// Its first instant (local midnight; where a zone skips midnight, the first time that exists).
    public var start: Date
    /// The first instant of the next period.
    public var end: Date
    /// When it ends on the boot clock of `bootID`.
    public var endBoot: BootTime
    /// The boot `endBoot` belongs to.
    public var bootID: String

    /// The period of `length` containing `now.wall` in `zone`, ending on the boot clock when
    /// the wall clock reaches its end.
    public static func containing(_ now: ClockReading, _ length: Length, in zone: TimeZone) -> AllowancePeriod {
        let (start, end) = bounds(containing: now.wall, length, in: zone)
        return AllowancePeriod(length: length, start: start, end: end, endBoot: now.boot + until(end, from: now.wall), bootID: now.bootID)
    }

    /// The local day or week containing `instant`.
    static func bounds(containing instant: Date, _ length: Length, in zone: TimeZone) -> (Date, Date) {
        let day = LocalDay.containing(instant, in: zone)
        guard length == .week else { return (day.start, day.end) }
        let calendar = Calendar.gregorian(in: zone)
        // Foundation's weekday is 1 for Sunday; days since Monday 0–6.
        let sinceMonday = (calendar.component(.weekday, from: day.start) + 5) % 7
        let mondayNoon = calendar.date(byAdding: .day, value: -sinceMonday, to: day.start.addingTimeInterval(12 * 3600)) ?? day.start
        let monday = LocalDay.containing(mondayNoon, in: zone)
        let nextMondayNoon = calendar.date(byAdding: .day, value: 7, to: monday.start.addingTimeInterval(12 * 3600)) ?? monday.end
        return (monday.start, LocalDay.containing(nextMondayNoon, in: zone).start)
    }

    /// Whether the period is over at `now`: on the same boot, when the boot clock reached its
    /// end; after a reboot, when a synchronised wall clock is past its end.
    public func isOver(at now: ClockReading) -> Bool {
        if now.bootID == bootID { return now.boot >= endBoot }
        return now.wallIsSynchronised && now.wall >= end
    }

    /// The period in force at `now`, given that this one was in force at the last checkpoint
    /// (`checkpointWall`): itself, with its boot-clock end carried over a reboot, or the next
    /// one. A new period is never earlier than the end of this one, whatever the wall clock says.
    public func advanced(to now: ClockReading, checkpointWall: Date, in zone: TimeZone) -> (period: AllowancePeriod, reset: Bool) {
        if !isOver(at: now) {
            guard now.bootID != bootID else { return (self, false) }
            // A reboot: what is left is the wall time to the end when the clock is
            // synchronised, else what was left at the last checkpoint (time off counts nothing).
            let left = now.wallIsSynchronised ? Self.until(end, from: now.wall) : Self.until(end, from: checkpointWall)
            var carried = self
            carried.endBoot = now.boot + left
            carried.bootID = now.bootID
            return (carried, false)
        }
        var next = Self.containing(now, length, in: zone)
        if next.start < end {
            // The wall clock is behind the period that just ended: the next period starts at
            // its end, and lasts until the wall clock gets there and through it.
            let (start, finish) = Self.bounds(containing: end, length, in: zone)
            next = AllowancePeriod(
                length: length, start: start, end: finish, endBoot: now.boot + Self.until(finish, from: now.wall), bootID: now.bootID)
        }
        return (next, true)
    }

    /// The time from `wall` to `end`, never negative.
    static func until(_ end: Date, from wall: Date) -> Duration {
        Duration.checkedSeconds(max(0, end.timeIntervalSince(wall))) ?? .zero
    }
}
