import Foundation
import LockCore

/// The window `lockctl insights` asks for, from its options, in the local time zone: this week
/// by default, `--month`, `--days N` (today and the N-1 days before), or `--from`/`--to`
/// (dates, `--to` inclusive, or RFC 3339 times).
struct InsightsWindow: Equatable {
    var from: Date
    var to: Date?
    /// A title for the output (`this week`, `March 2027`, `the last 30 days`).
    var title: String

    static func resolve(month: Bool, days: Int?, from: String?, to: String?, now: Date, zone: TimeZone) throws -> InsightsWindow {
        let calendar = Calendar.gregorian(in: zone)
        let given = [month, days != nil, from != nil || to != nil].filter { $0 }.count
        guard given <= 1 else { throw InsightsWindowError("give one of --month, --days and --from/--to") }
        if month {
            let start = calendar.dateInterval(of: .month, for: now)?.start ?? calendar.startOfDay(for: now)
            let formatter = DateFormatter()
            formatter.timeZone = zone
            formatter.dateFormat = "LLLL yyyy"
            return InsightsWindow(from: start, to: nil, title: formatter.string(from: now))
        }
        if let days {
            guard (1...367).contains(days) else { throw InsightsWindowError("--days: must be from 1 to 367") }
            let today = calendar.startOfDay(for: now)
            let start = calendar.date(byAdding: .day, value: -(days - 1), to: today) ?? today
            return InsightsWindow(from: calendar.startOfDay(for: start), to: nil, title: days == 1 ? "today" : "the last \(days) days")
        }
        if from != nil || to != nil {
            let start =
                try from.map { try parse($0, option: "--from", calendar: calendar, endOfDay: false) }
                ?? calendar.date(byAdding: .day, value: -6, to: calendar.startOfDay(for: now))!
            let end = try to.map { try parse($0, option: "--to", calendar: calendar, endOfDay: true) }
            if let end, end <= start { throw InsightsWindowError("--to must be after --from") }
            return InsightsWindow(from: start, to: end, title: "\(from ?? "") – \(to ?? "now")")
        }
        let start = calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? calendar.startOfDay(for: now)
        return InsightsWindow(from: start, to: nil, title: "this week")
    }

    /// `2027-03-01` (local midnight; for `--to` the next day's) or an RFC 3339 time.
    static func parse(_ text: String, option: String, calendar: Calendar, endOfDay: Bool) throws -> Date {
        let parts = text.split(separator: "-")
        if parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day))
        {
            let start = calendar.startOfDay(for: date)
            return endOfDay ? calendar.startOfDay(for: calendar.date(byAdding: .day, value: 1, to: start) ?? start) : start
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw InsightsWindowError("\(option): \"\(text)\" is not a date (2027-03-01) or an RFC 3339 time")
    }
}

struct InsightsWindowError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
