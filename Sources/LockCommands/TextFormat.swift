import Foundation
import LockCore

/// Small helpers for the terse, aligned text output of `lockctl`.
enum TextFormat {
    /// Rows with columns padded to the widest cell, two spaces apart, the last column unpadded.
    static func table(_ rows: [[String]], indent: String = "") -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = indent
            for (index, cell) in row.enumerated() {
                line += index == row.count - 1 ? cell : cell.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0)
            }
            return line.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }

    /// A local wall-clock time: `15:42` today, `Mon 09:00` within a week, a date beyond.
    static func clock(_ date: Date, now: Date = Date()) -> String {
        let calendar = Calendar.current
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        if calendar.isDate(date, inSameDayAs: now) {
            formatter.dateFormat = "HH:mm"
        } else if abs(date.timeIntervalSince(now)) < 6 * 86_400 {
            formatter.dateFormat = "EEE HH:mm"
        } else {
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
        }
        return formatter.string(from: date)
    }

    /// A duration in seconds, as `44m 59s`.
    static func duration(seconds: Int) -> String { DurationParser.format(.seconds(seconds)) }
}
