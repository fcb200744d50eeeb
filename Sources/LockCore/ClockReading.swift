import Foundation

/// A point on `CLOCK_BOOTTIME`: nanoseconds since the machine booted, counting time spent suspended.
///
/// Remaining block time is measured on this clock because a user cannot move it: changing the
/// wall clock does not change it, and it keeps running while the machine sleeps.
public struct BootTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since boot.
    public var nanoseconds: Int64

    /// Creates a boot-clock instant from nanoseconds since boot.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Creates a boot-clock instant from seconds since boot.
    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    public static func < (a: BootTime, b: BootTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `d` later (or earlier, for a negative duration).
    public static func + (t: BootTime, d: Duration) -> BootTime {
        BootTime(nanoseconds: t.nanoseconds &+ d.nanosecondsClamped)
    }

    /// The instant `d` earlier.
    public static func - (t: BootTime, d: Duration) -> BootTime {
        BootTime(nanoseconds: t.nanoseconds &- d.nanosecondsClamped)
    }

    /// The time from `b` to `a` (negative when `a` is earlier).
    public static func - (a: BootTime, b: BootTime) -> Duration {
        .nanoseconds(a.nanoseconds &- b.nanoseconds)
    }

    public var description: String { "boot+\(Double(nanoseconds) / 1e9)s" }
}

/// One reading of every clock the core cares about, taken at the same moment.
///
/// The core never reads a clock itself; callers pass a reading in, which keeps the logic pure
/// and lets tests move time freely.
public struct ClockReading: Sendable, Equatable {
    /// Wall-clock time (`CLOCK_REALTIME`): what users see, and what schedules are written in.
    public var wall: Date
    /// Boot-clock time (`CLOCK_BOOTTIME`): what block durations are counted on.
    public var boot: BootTime
    /// Identifies the current boot (`/proc/sys/kernel/random/boot_id`), so that a boot-clock
    /// reading saved before a reboot is never compared with one taken after it.
    public var bootID: String

    /// Creates a reading from its parts.
    public init(wall: Date, boot: BootTime, bootID: String) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at the bounds of `Int64`.
    public var nanosecondsClamped: Int64 {
        let (s, atto) = components
        let (ns, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return s < 0 ? .min : .max }
        let (sum, o2) = ns.addingReportingOverflow(atto / 1_000_000_000)
        if o2 { return s < 0 ? .min : .max }
        return sum
    }

    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
