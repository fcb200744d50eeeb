import Foundation

/// Usage summed per local day and per item name: the shape insights and `lockctl usage` show.
public struct UsageDay: Sendable, Equatable {
    /// The day (23, 24 or 25 hours long, in the user's zone).
    public var day: LocalDay
    /// Seconds per name under the grouping asked for.
    public var seconds: [String: Int]

    /// Creates a day's sums.
    public init(day: LocalDay, seconds: [String: Int]) {
        self.day = day
        self.seconds = seconds
    }

    /// The day's total.
    public var total: Int { seconds.values.reduce(0, +) }
}

extension UsageDay {
    /// Sums amounts of usage into the local days of `window` in `zone`, by `grouping`. Amounts starting outside
    /// the window, or that the grouping does not count, are left out.
    public static func sum(
        _ amounts: some Sequence<UsageAmount>, by grouping: UsageGrouping, over window: DateInterval, in zone: TimeZone
    ) -> [UsageDay] {
        let days = LocalDay.days(covering: window, in: zone)
        guard !days.isEmpty else { return [] }
        // Day boundaries as minute indexes: every zone's offset is a whole number of minutes.
        let bounds = days.map { UsageMinute.index(of: $0.start) }
        var sums = Array(repeating: [String: Int](), count: days.count)
        let (first, last) = (UsageMinute.index(of: window.start), UsageMinute.index(endingAt: window.end))
        for minute in amounts where minute.minute >= first && minute.minute < last {
            guard let key = grouping.key(of: minute.item) else { continue }
            // The last day starting at or before the minute.
            var low = 0
            var high = bounds.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if bounds[middle] <= minute.minute { low = middle } else { high = middle - 1 }
            }
            sums[low][key, default: 0] += minute.seconds
        }
        return zip(days, sums).map { UsageDay(day: $0, seconds: $1) }
    }
}
