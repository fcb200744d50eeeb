import Foundation

/// Focus time: the time at least one block was in force, per local day. Blocks that overlap
/// (a schedule and a manual block, a Pomodoro phase inside a schedule) count once.
public enum FocusLedger {
    /// The union of `intervals`: sorted, with overlapping and touching ones merged.
    public static func union(_ intervals: [DateInterval]) -> [DateInterval] {
        let sorted = intervals.filter { $0.duration > 0 }.sorted { $0.start < $1.start }
        var merged: [DateInterval] = []
        for interval in sorted {
            if let last = merged.last, interval.start <= last.end {
                if interval.end > last.end { merged[merged.count - 1] = DateInterval(start: last.start, end: interval.end) }
            } else {
                merged.append(interval)
            }
        }
        return merged
    }

    /// For each day, the time within it that some interval covers (overlaps once).
    public static func perDay(_ intervals: [DateInterval], days: [LocalDay]) -> [TimeInterval] {
        let merged = union(intervals)
        var totals = [TimeInterval](repeating: 0, count: days.count)
        var first = 0
        for (index, day) in days.enumerated() {
            // Intervals ending before this day cannot touch later days either (days are in order).
            while first < merged.count, merged[first].end <= day.start { first += 1 }
            var cursor = first
            while cursor < merged.count, merged[cursor].start < day.end {
                let overlap = min(merged[cursor].end, day.end).timeIntervalSince(max(merged[cursor].start, day.start))
                if overlap > 0 { totals[index] += overlap }
                cursor += 1
            }
        }
        return totals
    }

    /// How many of `instants` fall on each day (Pomodoros completed, attempts, unlocks).
    public static func countPerDay(_ instants: [Date], days: [LocalDay]) -> [Int] {
        var counts = [Int](repeating: 0, count: days.count)
        for instant in instants {
            if let index = dayIndex(of: instant, in: days) { counts[index] += 1 }
        }
        return counts
    }

    /// The index of the day containing `instant`, by binary search; nil outside them.
    public static func dayIndex(of instant: Date, in days: [LocalDay]) -> Int? {
        var low = 0
        var high = days.count
        while low < high {
            let middle = (low + high) / 2
            if days[middle].end <= instant { low = middle + 1 } else { high = middle }
        }
        return low < days.count && days[low].start <= instant ? low : nil
    }
}
