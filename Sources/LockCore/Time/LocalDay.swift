import Foundation

/// One calendar day in a time zone: from its local midnight to the next one. Most days last 24
/// hours; the days clocks change last 23 or 25 (or, where midnight itself is skipped, start at
/// the first local time that exists).
public struct LocalDay: Sendable, Equatable, Hashable {
    /// The civil date, `2027-03-28`.
    public var date: String
    /// The first instant of the day.
    public var start: Date
    /// The first instant of the next day.
    public var end: Date

    /// Creates a day from its parts.
    public init(date: String, start: Date, end: Date) {
        self.date = date
        self.start = start
        self.end = end
    }

    /// How long the day lasts.
    public var length: TimeInterval { end.timeIntervalSince(start) }

    /// The days that `interval` touches in `zone`, in order: the first contains its start, the
    /// last contains the instant just before its end. Each day is whole, not clipped.
    public static func days(covering interval: DateInterval, in zone: TimeZone) -> [LocalDay] {
        let calendar = Calendar.gregorian(in: zone)
        var result: [LocalDay] = []
        var start = calendar.startOfDay(for: interval.start)
        // A bound far beyond any real window, so a caller's mistake cannot loop for long.
        while start < interval.end, result.count < 100_000 {
            let end = nextDayStart(after: start, calendar: calendar)
            result.append(LocalDay(date: civilDate(start, calendar: calendar), start: start, end: end))
            start = end
        }
        return result
    }

    /// The day containing `instant`.
    public static func containing(_ instant: Date, in zone: TimeZone) -> LocalDay {
        days(covering: DateInterval(start: instant, duration: 0.001), in: zone)[0]
    }

    /// The start of the day after the one starting at `start`. Adding one calendar day and
    /// going back to its midnight keeps 23- and 25-hour days whole, and lands on the first
    /// existing time where a zone skips midnight.
    static func nextDayStart(after start: Date, calendar: Calendar) -> Date {
        let later = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        let next = calendar.startOfDay(for: later)
        // Never stand still, whatever a zone's rules do.
        return next > start ? next : start.addingTimeInterval(86_400)
    }

    /// The civil date of `date` in `calendar`, `2027-03-28`.
    public static func civilDate(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

extension Calendar {
    /// The Gregorian calendar in `zone`, weeks starting on Monday (ISO 8601).
    public static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }
}
