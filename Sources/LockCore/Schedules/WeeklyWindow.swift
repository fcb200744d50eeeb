import Foundation

/// A weekly block window: on each of `days`, from `from` to `to` wall-clock time
/// (`--days mon-fri --from 09:00 --to 12:30`).
///
/// When `to` is not after `from` the window runs overnight and belongs to the day it starts
/// on: a Friday 22:00–07:00 window ends on Saturday at 07:00. Starts follow systemd's rules
/// (they are exactly the elapses of `startExpression`): a start inside a spring-forward gap is
/// skipped that day, and a repeated start time starts once, at its first occurrence. Ends are
/// never skipped, so a window always ends: an end inside a gap ends at the first instant after
/// the gap, and a repeated end time ends at its first occurrence.
public struct WeeklyWindow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The days on which the window starts.
    public let days: WeekdaySet
    /// The wall-clock start time.
    public let from: TimeOfDay
    /// The wall-clock end time, on the next day when it is not after `from`.
    public let to: TimeOfDay

    /// Creates a window; it must have at least one day and last at least a minute.
    public init(days: WeekdaySet, from: TimeOfDay, to: TimeOfDay) throws(ScheduleError) {
        guard !days.isEmpty else {
            throw ScheduleError(field: .days, value: "", reason: "no weekdays given (e.g. mon-fri, sat,sun, all)")
        }
        guard from != to else {
            throw ScheduleError(
                field: .to, value: to.description, reason: "\(to) is the same as --from; a window needs an end different from its start")
        }
        let length = (to.secondsSinceMidnight - from.secondsSinceMidnight + 86_400) % 86_400
        guard length >= 60 else {
            throw ScheduleError(
                field: .to, value: to.description,
                reason: "\(to) is less than a minute after --from \(from); a window lasts at least one minute")
        }
        self.days = days
        self.from = from
        self.to = to
    }

    /// Parses the `--days`, `--from` and `--to` values.
    public init(days: String, from: String, to: String) throws(ScheduleError) {
        try self.init(
            days: try WeekdaySet(parsing: days),
            from: try TimeOfDay(parsing: from, field: .from),
            to: try TimeOfDay(parsing: to, field: .to))
    }

    /// Whether the window ends on the day after it starts.
    public var crossesMidnight: Bool { to < from }

    /// The systemd calendar expression whose elapses are this window's starts, e.g.
    /// `Mon..Fri *-*-* 09:00:00`.
    public var startExpression: String { startPattern.systemdText(zoneName: nil) }

    var startPattern: CalendarPattern {
        CalendarPattern(
            weekdays: days == .all ? nil : days,
            hours: [.init(from.hour)], minutes: [.init(from.minute)], seconds: [.init(from.second)])
    }

    /// The first start strictly after `instant` in `zone`.
    public func nextStart(after instant: Date, in zone: TimeZone) -> Date? {
        startPattern.nextElapse(after: instant, in: zone)
    }

    /// The window that begins at `start` (which should be one of this window's starts).
    public func interval(startingAt start: Date, in zone: TimeZone) -> DateInterval {
        let resolver = LocalTimeResolver(zone: zone)
        let startDay = resolver.civilTime(at: Int64(start.timeIntervalSince1970.rounded(.down)))
        let endDay = crossesMidnight ? startDay.nextDay : startDay
        let end = resolver.earliestInstant(for: endDay.at(to).localSeconds)
        return DateInterval(start: start, end: max(start, Date(timeIntervalSince1970: TimeInterval(end))))
    }

    /// `mon-fri 09:00–12:30`.
    public var description: String { "\(days) \(from)–\(to)" }

    private enum CodingKeys: String, CodingKey { case days, from, to }

    /// Decodes `{"days": "mon-fri", "from": "09:00", "to": "12:30"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                days: try container.decode(String.self, forKey: .days),
                from: try container.decode(String.self, forKey: .from),
                to: try container.decode(String.self, forKey: .to))
        } catch let error as ScheduleError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the canonical `--days`, `--from` and `--to` texts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(days.description, forKey: .days)
        try container.encode(from.description, forKey: .from)
        try container.encode(to.description, forKey: .to)
    }
}
