import Foundation

/// A systemd calendar expression (`OnCalendar=` syntax, `man systemd.time`), such as
/// `Mon..Fri 09:00`, `*:0/15`, `*-*~01 18:00`, `weekly`, `2027-01-15 08:00` or
/// `Sat,Sun 10:00 Europe/Berlin`.
///
/// It is kept in systemd's normalized form (`Mon..Fri *-*-* 09:00:00`), which is what
/// `systemd-analyze calendar` prints, so the two can be compared and the text round-trips.
/// Elapses follow systemd's rules, including for DST: a wall-clock time skipped by a
/// spring-forward change does not elapse that day, and one repeated by a fall-back change
/// elapses once, at its first occurrence.
public struct CalendarSpec: TextCodable, Sendable, Hashable, CustomStringConvertible {
    /// The expression in systemd's normalized form, including a trailing zone if one was given.
    public let normalizedText: String
    /// The zone named at the end of the expression (`UTC` or an IANA name), which overrides the
    /// zone the schedule is otherwise evaluated in.
    public let timeZoneName: String?
    let pattern: CalendarPattern

    /// Parses an expression; errors are attributed to the `on` field.
    public init(parsing text: String) throws(ScheduleError) {
        let result = try CalendarSpecParser.parse(text)
        pattern = result.pattern
        timeZoneName = result.zoneName
        normalizedText = result.pattern.systemdText(zoneName: result.zoneName)
    }

    /// The zone named at the end of the expression, if any.
    public var timeZone: TimeZone? { timeZoneName.flatMap(LocalTimeResolver.timeZone(named:)) }

    /// The first elapse strictly after `instant`, evaluated in the expression's own zone or else
    /// in `zone`; `nil` if it never elapses again (systemd gives up after the year 2199).
    public func nextElapse(after instant: Date, in zone: TimeZone) -> Date? {
        pattern.nextElapse(after: instant, in: timeZone ?? zone)
    }

    /// Up to `count` consecutive elapses strictly after `instant`, like
    /// `systemd-analyze calendar --iterations=count --base-time=instant`.
    public func nextElapses(after instant: Date, count: Int, in zone: TimeZone) -> [Date] {
        var elapses: [Date] = []
        var cursor = instant
        while elapses.count < count, let next = nextElapse(after: cursor, in: zone) {
            elapses.append(next)
            cursor = next
        }
        return elapses
    }

    /// The normalized form.
    public var description: String { normalizedText }
}

extension CalendarSpec {
    /// The text stored and sent for this value.
    public var codableText: String { normalizedText }
}
