import Foundation

/// When a schedule blocks: weekly windows, a systemd calendar expression plus a duration, or a
/// cron expression plus a duration.
///
/// Evaluation is stateless: every question takes the current instant and the zone the schedule
/// lives in, so the daemon can ask "which intervals contain now?" and "when is the next
/// edge?" at start-up, after a resume or a clock change, and get the same answer it would have
/// got by watching all along. A calendar or cron interval is `[elapse, elapse + duration)` with
/// the duration in absolute seconds, so it lasts as long across a DST change as on any other day.
public enum ScheduleRule: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Weekly windows (`--days mon-fri --from 09:00 --to 12:30`).
    case weekly(WeeklyWindow)
    /// A block of `duration` at each elapse of a calendar expression (`--on '…' --length 2h`).
    case calendar(CalendarSpec, duration: Duration)
    /// A block of `duration` at each match of a cron expression (`--cron '…' --length 2h`).
    case cron(CronExpression, duration: Duration)

    /// The longest `--length` accepted; longer blocks are almost certainly typos, and the bound
    /// keeps date arithmetic far from overflow.
    public static let maximumDuration = Duration.seconds(366 * 86_400)

    /// A weekly window from the `--days`, `--from` and `--to` values.
    public init(days: String, from: String, to: String) throws(ScheduleError) {
        self = .weekly(try WeeklyWindow(days: days, from: from, to: to))
    }

    /// A calendar expression (`--on`) with the length of each block (`--length`).
    public init(on expression: String, for duration: Duration) throws(ScheduleError) {
        let spec = try CalendarSpec(parsing: expression)
        self = .calendar(spec, duration: try Self.validated(duration))
    }

    /// A cron expression (`--cron`) with the length of each block (`--length`).
    public init(cron expression: String, for duration: Duration) throws(ScheduleError) {
        let cron = try CronExpression(parsing: expression)
        self = .cron(cron, duration: try Self.validated(duration))
    }

    /// The zone a `--tz` value names (an IANA name such as `Europe/Berlin`, or `UTC`).
    public static func timeZone(named name: String) throws(ScheduleError) -> TimeZone {
        guard let zone = LocalTimeResolver.timeZone(named: name) else {
            throw ScheduleError(
                field: .tz, value: name,
                reason: "\(name.isEmpty ? "''" : name) is not a known time zone (e.g. Europe/Berlin, America/New_York, UTC)")
        }
        return zone
    }

    private static func validated(_ duration: Duration) throws(ScheduleError) -> Duration {
        guard duration > .zero else {
            throw ScheduleError(
                field: .for, value: DurationParser.formatExact(duration),
                reason: "\(DurationParser.formatExact(duration)) is not a positive duration")
        }
        guard duration <= maximumDuration else {
            throw ScheduleError(
                field: .for, value: DurationParser.formatExact(duration),
                reason: "\(DurationParser.formatExact(duration)) is longer than the maximum of 366d")
        }
        return duration
    }

    // MARK: Evaluation

    /// The next `count` intervals whose start is strictly after `instant`, in order.
    public func nextIntervals(after instant: Date, count: Int, in zone: TimeZone) -> [DateInterval] {
        var intervals: [DateInterval] = []
        var cursor = instant
        while intervals.count < count, let start = nextStart(after: cursor, in: zone) {
            intervals.append(interval(startingAt: start, in: zone))
            cursor = start
        }
        return intervals
    }

    /// Every interval containing `now` (start ≤ now < end), earliest start first, at most
    /// `limit` of them. Calendar and cron intervals may overlap when the duration is longer
    /// than the gap between elapses (`minutely` for 3 h gives 180).
    public func intervals(containing now: Date, in zone: TimeZone, limit: Int = 1000) -> [DateInterval] {
        guard let lookback else { return [] }
        var intervals: [DateInterval] = []
        var cursor = now - lookback
        while intervals.count < limit, let start = nextStart(after: cursor, in: zone), start <= now {
            let candidate = interval(startingAt: start, in: zone)
            if candidate.end > now { intervals.append(candidate) }
            cursor = start
        }
        return intervals
    }

    /// The union of all intervals containing `now`, or `nil` when none does: from the earliest
    /// start to the latest end among them. Found with a logarithmic number of searches, so
    /// it stays cheap when thousands of intervals overlap.
    public func activeInterval(at now: Date, in zone: TimeZone) -> DateInterval? {
        guard case let length? = fixedLength else {
            let containing = intervals(containing: now, in: zone)
            guard let first = containing.first, let end = containing.map(\.end).max() else { return nil }
            return DateInterval(start: first.start, end: end)
        }
        guard let first = nextStart(after: now - length, in: zone), first <= now else { return nil }
        var latest = first
        if let second = nextStart(after: first, in: zone), second <= now {
            // Starts fall on whole seconds. Bisect: a start lies in (low, now], none in (high, now].
            var low = Int64(first.timeIntervalSince1970)
            var high = Int64(now.timeIntervalSince1970.rounded(.down))
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if let start = nextStart(after: Date(timeIntervalSince1970: TimeInterval(middle)), in: zone), start <= now {
                    low = middle
                } else {
                    high = middle
                }
            }
            latest = nextStart(after: Date(timeIntervalSince1970: TimeInterval(low)), in: zone) ?? second
        }
        return DateInterval(start: first, end: latest + length)
    }

    /// The next instant strictly after `now` at which any interval starts or ends, so the
    /// daemon can arm a single timer; `nil` when nothing will ever start or end again.
    public func nextEdge(after now: Date, in zone: TimeZone) -> Date? {
        let start = nextStart(after: now, in: zone)
        let end: Date?
        if case let length? = fixedLength {
            // Intervals starting after now - length are exactly those still running or to come.
            end = nextStart(after: now - length, in: zone).map { $0 + length }
        } else {
            end = intervals(containing: now, in: zone).map(\.end).min()
        }
        return [start, end].compactMap { $0 }.min()
    }

    /// The first interval start strictly after `instant`.
    public func nextStart(after instant: Date, in zone: TimeZone) -> Date? {
        switch self {
        case .weekly(let window): window.nextStart(after: instant, in: zone)
        case .calendar(let spec, _): spec.nextElapse(after: instant, in: zone)
        case .cron(let cron, _): cron.nextElapse(after: instant, in: zone)
        }
    }

    /// The interval that begins at `start` (which should be one of the rule's starts).
    public func interval(startingAt start: Date, in zone: TimeZone) -> DateInterval {
        switch self {
        case .weekly(let window): window.interval(startingAt: start, in: zone)
        case .calendar(_, let duration), .cron(_, let duration):
            DateInterval(start: start, duration: max(0, duration.seconds))
        }
    }

    /// The duration of every interval, for calendar and cron rules.
    private var fixedLength: TimeInterval? {
        switch self {
        case .weekly: nil
        case .calendar(_, let duration), .cron(_, let duration): max(0, duration.seconds)
        }
    }

    /// How long before `now` an interval containing `now` can have started; `nil` if no
    /// interval can contain anything.
    private var lookback: TimeInterval? {
        switch fixedLength {
        // A window is shorter than a day; DST can stretch it by at most a few hours.
        case nil: 2 * 86_400
        case let length? where length > 0: length
        default: nil
        }
    }

    // MARK: Text and coding

    /// The command-line flags that recreate the rule, e.g.
    /// `--days mon-fri --from 09:00 --to 12:30` or `--on 'Mon..Fri *-*-* 09:00:00' --length 3h`.
    public var description: String {
        switch self {
        case .weekly(let window): "--days \(window.days) --from \(window.from) --to \(window.to)"
        case .calendar(let spec, let duration): "--on '\(spec.normalizedText)' --length \(DurationParser.formatExact(duration))"
        case .cron(let cron, let duration): "--cron '\(cron.text)' --length \(DurationParser.formatExact(duration))"
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, days, from, to, on, cron, seconds }

    /// Decodes `{"kind": "weekly", "days": …, "from": …, "to": …}`,
    /// `{"kind": "calendar", "on": …, "seconds": …}` or `{"kind": "cron", "cron": …, "seconds": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        do {
            switch kind {
            case "weekly":
                self = try ScheduleRule(
                    days: container.decode(String.self, forKey: .days),
                    from: container.decode(String.self, forKey: .from),
                    to: container.decode(String.self, forKey: .to))
            case "calendar":
                self = try ScheduleRule(
                    on: container.decode(String.self, forKey: .on),
                    for: .seconds(container.decode(Double.self, forKey: .seconds)))
            case "cron":
                self = try ScheduleRule(
                    cron: container.decode(String.self, forKey: .cron),
                    for: .seconds(container.decode(Double.self, forKey: .seconds)))
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .kind, in: container, debugDescription: "unknown schedule kind '\(kind)' (weekly, calendar, cron)")
            }
        } catch let error as ScheduleError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the kind plus the texts (and the duration in seconds) that recreate the rule.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .weekly(let window):
            try container.encode("weekly", forKey: .kind)
            try container.encode(window.days.description, forKey: .days)
            try container.encode(window.from.description, forKey: .from)
            try container.encode(window.to.description, forKey: .to)
        case .calendar(let spec, let duration):
            try container.encode("calendar", forKey: .kind)
            try container.encode(spec.normalizedText, forKey: .on)
            try container.encode(duration.seconds, forKey: .seconds)
        case .cron(let cron, let duration):
            try container.encode("cron", forKey: .kind)
            try container.encode(cron.text, forKey: .cron)
            try container.encode(duration.seconds, forKey: .seconds)
        }
    }
}
