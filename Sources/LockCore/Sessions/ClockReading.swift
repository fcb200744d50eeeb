import Foundation

/// A point on `CLOCK_BOOTTIME`: nanoseconds since the machine booted, counting time spent suspended.
///
/// Remaining block time is measured on this clock because a user cannot move it: changing the
/// wall clock does not change it, and it keeps running while the machine sleeps.
///
/// Arithmetic saturates at the bounds of `Int64` instead of wrapping: an end time that wrapped
/// around once ended a strict block at once.
public struct BootTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since boot.
    public var nanoseconds: Int64

    /// Creates a boot-clock instant from nanoseconds since boot.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// Creates a boot-clock instant from seconds since boot; out-of-range or non-finite
    /// values saturate (NaN is zero).
    public init(seconds: Double) { self.nanoseconds = Int64(saturating: seconds * 1e9) }

    public static func < (a: BootTime, b: BootTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `d` later (or earlier, for a negative duration), saturating.
    public static func + (t: BootTime, d: Duration) -> BootTime {
        BootTime(nanoseconds: t.nanoseconds.addingSaturating(d.nanosecondsClamped))
    }

    /// The instant `d` earlier, saturating.
    public static func - (t: BootTime, d: Duration) -> BootTime {
        BootTime(nanoseconds: t.nanoseconds.subtractingSaturating(d.nanosecondsClamped))
    }

    /// The time from `b` to `a` (negative when `a` is earlier), saturating.
    public static func - (a: BootTime, b: BootTime) -> Duration {
        .nanoseconds(a.nanoseconds.subtractingSaturating(b.nanoseconds))
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
    /// Whether the wall clock is known to be right (the kernel or a time daemon says it is
    /// synchronised). Wall time that passed while the machine was off counts against a block
    /// only then: a user who moves the clock forward and reboots must not end a block.
    public var wallIsSynchronised: Bool

    /// Creates a reading from its parts.
    public init(wall: Date, boot: BootTime, bootID: String, wallIsSynchronised: Bool = true) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
        self.wallIsSynchronised = wallIsSynchronised
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

    /// A duration of `seconds` to the nanosecond, or nil when the value is not finite or does
    /// not fit in nanoseconds (about 292 years); `Duration.seconds(1e20)` would trap.
    public static func checkedSeconds(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, abs(seconds) < 9.2e9 else { return nil }
        return .nanoseconds(Int64(saturating: seconds * 1e9))
    }
}

extension Int64 {
    /// `value` rounded to the nearest integer, clamped to the range of `Int64`; NaN is zero.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.223372036854775e18 {
            self = .max
        } else if value <= -9.223372036854775e18 {
            self = .min
        } else {
            self = Int64(value.rounded())
        }
    }

    /// `self + other`, clamped to the range of `Int64`.
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to the range of `Int64`.
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
