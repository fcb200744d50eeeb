import Foundation

/// Parses and formats the durations users type: `45m`, `1h30m`, `90s`, `2h`, `1d 12h`.
///
/// A bare number is refused rather than guessed at: `45` could mean seconds or minutes, and a
/// strict block of the wrong length cannot be taken back.
public enum DurationParser {
    /// Why a duration could not be parsed.
    public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        /// The text the user gave.
        public var value: String
        /// What is wrong with it.
        public var reason: String
        public var description: String { "\"\(value)\" is not a duration: \(reason)" }
    }

    private static let unitSeconds: [String: Int64] = [
        "d": 86_400, "day": 86_400, "days": 86_400,
        "h": 3_600, "hr": 3_600, "hour": 3_600, "hours": 3_600,
        "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
        "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    ]

    /// Parses a positive duration made of one or more `<number><unit>` parts (units `d`, `h`,
    /// `m`, `s` and their long forms), optionally separated by spaces.
    public static func parse(_ text: String) throws(ParseError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { throw ParseError(value: text, reason: "it is empty") }
        var total: Int64 = 0
        var index = trimmed.startIndex
        var seenUnits = Set<Int64>()
        while index < trimmed.endIndex {
            if trimmed[index] == " " {
                index = trimmed.index(after: index)
                continue
            }
            let numberStart = index
            while index < trimmed.endIndex, trimmed[index].isASCII, trimmed[index].isNumber {
                index = trimmed.index(after: index)
            }
            guard numberStart < index, let number = Int64(trimmed[numberStart..<index]) else {
                throw ParseError(value: text, reason: "expected a number at \"\(trimmed[numberStart...])\"")
            }
            let unitStart = index
            while index < trimmed.endIndex, trimmed[index].isLetter { index = trimmed.index(after: index) }
            let unit = String(trimmed[unitStart..<index])
            guard !unit.isEmpty else {
                throw ParseError(value: text, reason: "\(number) has no unit (use s, m, h or d, e.g. \(number)m)")
            }
            guard let seconds = unitSeconds[unit] else {
                throw ParseError(value: text, reason: "unknown unit \"\(unit)\" (use s, m, h or d)")
            }
            guard seenUnits.insert(seconds).inserted else {
                throw ParseError(value: text, reason: "unit \"\(unit)\" appears twice")
            }
            let (part, o1) = number.multipliedReportingOverflow(by: seconds)
            let (sum, o2) = total.addingReportingOverflow(part)
            guard !o1, !o2, sum <= 100 * 365 * 86_400 else {
                throw ParseError(value: text, reason: "it is too long")
            }
            total = sum
        }
        guard total > 0 else { throw ParseError(value: text, reason: "it must be longer than zero") }
        return .seconds(total)
    }

    /// Formats a duration for people, in the form `parse` reads and with every unit kept:
    /// `1h30m15s`, `44m59s`, `1d12h`, `5s`. Fractions of a second are rounded up, so a block
    /// never shows `0s` while it is still on. The one duration style of messages and output.
    public static func format(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        var seconds = atto > 0 ? whole.addingSaturating(1) : whole
        if seconds <= 0 { return "0s" }
        var text = ""
        for (size, name) in [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")] as [(Int64, String)] {
            let count = seconds / size
            seconds %= size
            if count > 0 { text += "\(count)\(name)" }
        }
        return text
    }

    /// Formats a duration exactly, in the form `parse` reads: `1h30m`, `25m`, `12m5s`, `0.5s`,
    /// `0s`, `-5s`, `400d`. Days are used only for whole days, so what a user typed (`30h`,
    /// `3d`) comes back as typed; used where the text is stored or echoed in an error, unlike
    /// the rounded display of `format`.
    public static func formatExact(_ duration: Duration) -> String {
        let ns = duration.nanosecondsClamped
        if ns < 0 { return "-" + formatExact(.nanoseconds(ns == .min ? .max : -ns)) }
        let whole = ns / 1_000_000_000
        let fraction = ns % 1_000_000_000
        if fraction == 0, whole > 0, whole % 86_400 == 0 { return "\(whole / 86_400)d" }
        var text = ""
        if whole / 3600 > 0 { text += "\(whole / 3600)h" }
        if whole % 3600 / 60 > 0 { text += "\(whole % 3600 / 60)m" }
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "\(whole % 60).\(digits)s"
        } else if whole % 60 > 0 || text.isEmpty {
            text += "\(whole % 60)s"
        }
        return text
    }
}
