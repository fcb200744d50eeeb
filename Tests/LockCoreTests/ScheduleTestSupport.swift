import Foundation
import LockCore

/// An instant written as ISO 8601 UTC (`2026-10-25T00:30:00Z`); traps on a typo.
func utc(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test instant \(text)") }
    return date
}

/// The zone with this identifier; traps on a typo.
func zone(_ identifier: String) -> TimeZone {
    guard let zone = TimeZone(identifier: identifier) else { fatalError("unknown test zone \(identifier)") }
    return zone
}

/// `yyyy-MM-dd HH:mm:ss` of `date` on the wall clock of `zone`, for readable expectations.
func wallClock(_ date: Date, _ zone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
}

/// The DST (or other offset) transitions of `zone` in `[from, to)`, with the offset change.
func transitions(of zone: TimeZone, from: Date, to: Date) -> [(instant: Date, change: TimeInterval)] {
    var result: [(Date, TimeInterval)] = []
    var cursor = from
    while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < to {
        let change = TimeInterval(zone.secondsFromGMT(for: next) - zone.secondsFromGMT(for: next - 1))
        result.append((next, change))
        cursor = next
    }
    return result
}
