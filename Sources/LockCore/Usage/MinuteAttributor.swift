import Foundation

/// Turns meters' samples into minutes, each minute of each device (this machine, each device
/// group) attributed to one item.
///
/// The rule: within a minute, sites win over apps, and among sites those the browser companion
/// saw win over those only the DNS filter or the firewall saw (the browser knows which tab was
/// in front; a name's queries and traffic also come from background tabs) (a site is the more specific thing: the
/// browser runs whatever site it shows); among items of the same kind, the one in use for the
/// most seconds of the minute; a tie goes to the name first in alphabetical order, so the
/// answer never depends on the order meters reported in. Of the meters that saw the winner,
/// the one that saw it longest is named (then the first by name). The minute records how many
/// of its seconds the winner was in use, so a day's totals never exceed the time that passed.
///
/// Attribution is for reports only: allowances count every second any of their items was in
/// use (`AllowanceLedger`), so running something else alongside never hides time from one.
public struct MinuteAttributor: Sendable {
    private struct Key: Hashable {
        var minute: Int64
        var device: String
    }

    private var pending: [Key: [UsageItem: [UsageMeter: Double]]] = [:]
    /// Minutes before this one were handed out; a late sample's part in them is dropped, so a
    /// saved minute is never replaced by a partial one.
    private var closedBefore: Int64 = .min

    /// Creates an empty attributor.
    public init() {}

    /// True when no sample is waiting for its minute to close.
    public var isEmpty: Bool { pending.isEmpty }

    /// Adds a sample, split over the minutes it covers. Samples of zero or negative length,
    /// or not finite, are ignored.
    public mutating func add(_ sample: UsageSample) {
        guard sample.seconds.isFinite, sample.seconds > 0 else { return }
        // A sample is at most a day: a meter that was stalled longer saw nothing in between.
        let seconds = min(sample.seconds, 86_400)
        let end = sample.end.timeIntervalSince1970
        var cursor = max(end - seconds, closedBefore == .min ? -.infinity : Double(closedBefore) * 60)
        while cursor < end {
            let minute = Int64((cursor / 60).rounded(.down))
            let minuteEnd = Double(minute + 1) * 60
            let part = min(minuteEnd, end) - cursor
            let key = Key(minute: minute, device: sample.item.device)
            pending[key, default: [:]][sample.item, default: [:]][sample.meter, default: 0] += part
            cursor = minuteEnd
        }
    }

    /// The attributed minutes before `minute` (exclusive), oldest first, removed from the
    /// pending ones. Call with the current minute to close every finished one.
    public mutating func close(before minute: Int64) -> [UsageMinute] {
        closedBefore = max(closedBefore, minute)
        let closing = pending.keys.filter { $0.minute < minute }
        var result: [UsageMinute] = []
        for key in closing {
            if let items = pending.removeValue(forKey: key), let chosen = Self.attribute(minute: key.minute, items) {
                result.append(chosen)
            }
        }
        return result.sorted { ($0.minute, $0.item) < ($1.minute, $1.item) }
    }

    /// Every pending minute, attributed (at shutdown).
    public mutating func closeAll() -> [UsageMinute] {
        let horizon = closedBefore
        defer { closedBefore = horizon }
        return close(before: .max)
    }

    static func attribute(minute: Int64, _ items: [UsageItem: [UsageMeter: Double]]) -> UsageMinute? {
        // An item the browser saw counts the browser's seconds only: the other meters saw the
        // same minutes less precisely, and adding them would count some twice.
        func total(_ item: UsageItem) -> Double {
            let meters = items[item, default: [:]]
            return min(60, meters[.browser] ?? meters.values.reduce(0, +))
        }
        func browserSaw(_ item: UsageItem) -> Bool { items[item]?[.browser] != nil }
        let winner = items.keys.min { a, b in
            if a.kind != b.kind { return a.kind < b.kind }
            if browserSaw(a) != browserSaw(b) { return browserSaw(a) }
            let (ta, tb) = (total(a), total(b))
            if ta != tb { return ta > tb }
            return a.name < b.name
        }
        guard let winner, let meters = items[winner] else { return nil }
        let meter = meters[.browser] != nil ? .browser : meters.min { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }!.key
        let seconds = Int(total(winner).rounded())
        guard seconds > 0 else { return nil }
        return UsageMinute(minute: minute, item: winner, meter: meter, seconds: seconds)
    }
}
