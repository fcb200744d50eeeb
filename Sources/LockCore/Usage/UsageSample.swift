import Foundation

/// One observation of a meter: `item` was in use for the `seconds` before `end` (wall clock).
///
/// Meters measure how long on the boot clock (a sample never stretches because the wall clock
/// moved) and place it on the wall clock only to find its minutes and days.
public struct UsageSample: Sendable, Equatable {
    /// What was in use.
    public var item: UsageItem
    /// The meter that saw it.
    public var meter: UsageMeter
    /// When the observed stretch ended (wall clock).
    public var end: Date
    /// How long it lasted, in seconds (measured on the boot clock).
    public var seconds: Double

    /// Creates a sample.
    public init(item: UsageItem, meter: UsageMeter, end: Date, seconds: Double) {
        self.item = item
        self.meter = meter
        self.end = end
        self.seconds = seconds
    }
}

/// One minute of usage, attributed to one item: what the store keeps and reports read.
public struct UsageMinute: Sendable, Equatable, Hashable {
    /// The minute: whole minutes since 1970 (UTC). Every zone's offset today is a whole
    /// number of minutes, so local days split exactly on minute boundaries.
    public var minute: Int64
    /// What the minute was spent on.
    public var item: UsageItem
    /// The meter that counted it.
    public var meter: UsageMeter
    /// How many of its seconds the item was in use (1–60).
    public var seconds: Int

    /// Creates a minute.
    public init(minute: Int64, item: UsageItem, meter: UsageMeter, seconds: Int) {
        self.minute = minute
        self.item = item
        self.meter = meter
        self.seconds = seconds
    }

    /// The minute's first instant.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(minute) * 60) }

    /// The minute containing `instant`.
    public static func index(of instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970 / 60).rounded(.down))
    }

    /// The first minute starting at or after `instant`: the exclusive end of a window ending
    /// there, so that the minute in progress is counted.
    public static func index(endingAt instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970 / 60).rounded(.up))
    }
}

/// Seconds of usage of one item starting at a minute: one attributed minute, or a stored sum
/// of a quarter hour's minutes (which never crosses a local day boundary).
public struct UsageAmount: Sendable, Equatable, Hashable {
    /// The first minute it covers (minutes since 1970, UTC).
    public var minute: Int64
    /// What the time was spent on.
    public var item: UsageItem
    /// How many seconds.
    public var seconds: Int

    /// Creates an amount.
    public init(minute: Int64, item: UsageItem, seconds: Int) {
        self.minute = minute
        self.item = item
        self.seconds = seconds
    }
}

extension UsageMinute {
    /// The minute as an amount of usage.
    public var amount: UsageAmount { UsageAmount(minute: minute, item: item, seconds: seconds) }
}
