import Foundation
import LockCore

/// The one look of lockctl's text output, for every command to use: tables with a header row
/// of capitals (like `history`), times from `ClockText`, durations from `DurationParser.format`
/// (`1h30m15s`), counts with the noun in the right number.
enum TextFormat {
    /// Rows with columns padded to the widest cell, two spaces apart, the last column unpadded.
    /// A column that is empty in every row but the header is left out, so there is never a gap.
    /// Cells may carry colours; widths count what is visible.
    static func table(_ rows: [[String]], indent: String = "", header: Bool = false) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        let body = header ? rows.dropFirst() : rows[...]
        let kept = (0..<columns).filter { column in body.contains { column < $0.count && !$0[column].isEmpty } || body.isEmpty }
        let trimmed = rows.map { row in kept.compactMap { $0 < row.count ? row[$0] : "" } }
        var widths = [Int](repeating: 0, count: kept.count)
        for row in trimmed {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], visibleWidth(cell)) }
        }
        return trimmed.map { row in
            var line = indent
            for (index, cell) in row.enumerated() {
                line += cell
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - visibleWidth(cell) + 2) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// Text from the daemon as it may be printed: control characters escaped (`\u{1B}`), so
    /// text stored before the daemon refused them cannot drive the reader's terminal.
    static func shown(_ text: String) -> String { DisplayText.sanitized(text) }

    /// How many columns `text` takes on a terminal (colour escapes take none).
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var escaping = false
        for character in text {
            if escaping {
                if character.isLetter { escaping = false }
            } else if character == "\u{1B}" {
                escaping = true
            } else {
                width += 1
            }
        }
        return width
    }

    /// A local wall-clock time (`ClockText`): `15:42` today, `Mon 09:00` within a week, a date beyond.
    static func clock(_ date: Date, now: Date = Date()) -> String {
        ClockText.time(date, now: now, zone: .current)
    }

    /// A duration in seconds, as `44m59s`.
    static func duration(seconds: Int) -> String { DurationParser.format(.seconds(seconds)) }

    /// A duration in seconds, as `44m59s`.
    static func duration(seconds: Double) -> String { DurationParser.format(.seconds(seconds)) }

    /// `1 domain`, `2 domains`.
    static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        CountText.of(count, singular, plural)
    }

    /// `text` wrapped at word boundaries to `width`, continuation lines indented by `indent`.
    static func wrap(_ text: String, width: Int, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
