import Foundation
import LockCore
import LockStore

/// Usage reports: seconds per app, category, site or device group over a window, per local
/// day, and (on request) which meter counted each minute.
public struct UsageService: Sendable {
    /// A report.
    public struct Report: Sendable, Equatable {
        public var window: DateInterval
        public var zone: TimeZone
        public var grouping: UsageGrouping
        public var totals: [(name: String, seconds: Int)]
        public var days: [UsageDay]
        public var minutes: [UsageMinute]?

        public static func == (a: Report, b: Report) -> Bool {
            a.window == b.window && a.zone == b.zone && a.grouping == b.grouping && a.days == b.days && a.minutes == b.minutes
                && a.totals.map(\.name) == b.totals.map(\.name) && a.totals.map(\.seconds) == b.totals.map(\.seconds)
        }
    }

    let store: StateStore
    let clock: @Sendable () -> ClockReading
    let zone: @Sendable () -> TimeZone

    /// A service reading `store`.
    public init(store: StateStore, clock: @escaping @Sendable () -> ClockReading, zone: @escaping @Sendable () -> TimeZone) {
        self.store = store
        self.clock = clock
        self.zone = zone
    }

    /// Usage in `[from, to)` (default: today so far), by `by` (default `app`).
    public func report(from: Date?, to: Date?, by: String?, zoneName: String?, explain: Bool) throws(InsightsError) -> Report {
        let now = clock().wall
        let zone: TimeZone
        if let zoneName {
            guard let named = TimeZone(identifier: zoneName) else { throw .unknownZone(zoneName) }
            zone = named
        } else {
            zone = self.zone()
        }
        guard let grouping = UsageGrouping(rawValue: by ?? "app") else {
            throw .invalidGoal(field: "by", reason: "\"\(by ?? "")\" is not one of app, category, site, group")
        }
        let start = from ?? LocalDay.containing(now, in: zone).start
        let end = min(to ?? now, now)
        guard start < end else { throw .invalidWindow(start >= now ? "from: the window is not in the past" : "from must be before to") }
        guard end.timeIntervalSince(start) <= 367 * 86_400 else {
            throw .invalidWindow("the window is longer than 367 days; ask for a year at most")
        }
        let window = DateInterval(start: start, end: end)
        do {
            let amounts = try store.usageAmounts(in: window, by: grouping, zone: zone)
            var totals: [String: Int] = [:]
            for amount in amounts { if let key = grouping.key(of: amount.item) { totals[key, default: 0] += amount.seconds } }
            return Report(
                window: window, zone: zone, grouping: grouping,
                totals: totals.map { ($0.key, $0.value) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 },
                days: UsageDay.sum(amounts, by: grouping, over: window, in: zone),
                minutes: explain ? try store.explainedMinutes(in: window) : nil)
        } catch {
            throw .storage(StorageFailure(error))
        }
    }
}
