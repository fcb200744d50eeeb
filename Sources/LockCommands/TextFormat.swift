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
        ClockText.time(date, now: now, zone: .current)
    }

    /// A duration in seconds, as `44m 59s`.
    static func duration(seconds: Int) -> String { DurationParser.format(.seconds(seconds)) }
}
