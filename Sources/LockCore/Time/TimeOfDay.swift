/// A wall-clock time of day such as `09:00` or `22:30`, independent of any date or time zone.
///
/// Windows are written with minute precision; seconds are accepted (`09:00:30`) so that the
/// "shorter than a minute" rule has something to reject rather than silently rounding.
public struct TimeOfDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Hours, 0–23.
    public let hour: Int
    /// Minutes, 0–59.
    public let minute: Int
    /// Seconds, 0–59.
    public let second: Int

    /// Creates a time of day; returns `nil` when a field is out of range.
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `H:MM`, `HH:MM` or `HH:MM:SS`; errors are attributed to `field` (`from` or `to`).
    public init(parsing text: String, field: ScheduleError.Field) throws(ScheduleError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let digitsOnly = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard (2...3).contains(parts.count), digitsOnly, parts[0].count <= 2,
            parts.dropFirst().allSatisfy({ $0.count == 2 })
        else {
            throw ScheduleError(
                field: field, value: text, reason: "\(text.isEmpty ? "''" : text) is not a time of day (expected HH:MM, e.g. 09:00)")
        }
        let numbers = parts.map { Int($0)! }
        let (hour, minute, second) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard hour <= 23 else {
            throw ScheduleError(field: field, value: text, reason: "\(text) is not a time of day (hours 0–23)")
        }
        guard minute <= 59 else {
            throw ScheduleError(field: field, value: text, reason: "\(text) is not a time of day (minutes 0–59)")
        }
        guard second <= 59 else {
            throw ScheduleError(field: field, value: text, reason: "\(text) is not a time of day (seconds 0–59)")
        }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Seconds since midnight on a day without DST changes.
    public var secondsSinceMidnight: Int { hour * 3600 + minute * 60 + second }

    /// `HH:MM`, or `HH:MM:SS` when the seconds are not zero.
    public var description: String {
        let hhmm = Self.twoDigits(hour) + ":" + Self.twoDigits(minute)
        return second == 0 ? hhmm : hhmm + ":" + Self.twoDigits(second)
    }

    /// Earlier in the day.
    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.secondsSinceMidnight < b.secondsSinceMidnight }

    /// Decodes the `HH:MM` text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text, field: .from)
        } catch {
            // Which flag the value came from is unknown here, so only the reason is reported.
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.reason))
        }
    }

    /// Encodes the `HH:MM` text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
