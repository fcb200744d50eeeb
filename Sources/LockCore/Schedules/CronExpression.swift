import Foundation

/// A classic five-field cron expression, `minute hour day-of-month month day-of-week`, such as
/// `0 8-17/2 * * 1-5`, `*/15 * * * *`, `30 7 * jan-mar mon,wed` or `@daily`.
///
/// Fields take `*`, numbers, names (`jan`, `mon`), lists, ranges and steps (`*/15`, `8-17/2`,
/// `5/10` meaning `5-59/10`); 0 and 7 are both Sunday. As in Vixie cron, when both the
/// day-of-month and the day-of-week field are restricted (neither starts with `*`), a day
/// matches if *either* matches. Times are evaluated with systemd's DST rules, like calendar
/// expressions, so both kinds of rule behave the same across a clock change.
public struct CronExpression: TextCodable, Sendable, Hashable, CustomStringConvertible {
    /// The expression as typed, with runs of whitespace collapsed to single spaces.
    public let text: String
    let pattern: CalendarPattern

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Parses an expression; errors are attributed to the `cron` field.
    public init(parsing text: String) throws(ScheduleError) {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        self.text = fields.joined(separator: " ")
        if fields.count == 1, fields[0].hasPrefix("@") {
            let expanded: String
            switch fields[0].lowercased() {
            case "@hourly": expanded = "0 * * * *"
            case "@daily", "@midnight": expanded = "0 0 * * *"
            case "@weekly": expanded = "0 0 * * 0"
            case "@monthly": expanded = "0 0 1 * *"
            case "@yearly", "@annually": expanded = "0 0 1 1 *"
            default:
                throw ScheduleError(
                    field: .cron, value: fields[0],
                    reason: "\(fields[0]) is not a cron shorthand (@hourly, @daily, @weekly, @monthly, @yearly)")
            }
            pattern = try Self.pattern(fields: expanded.split(separator: " ").map(String.init))
        } else {
            guard fields.count == 5 else {
                throw ScheduleError(
                    field: .cron, value: self.text,
                    reason:
                        "'\(self.text)' has \(fields.count) field\(fields.count == 1 ? "" : "s"); cron needs 5: minute hour day-of-month month day-of-week"
                )
            }
            pattern = try Self.pattern(fields: fields)
        }
    }

    /// The equivalent systemd calendar expression (normalized form), or `nil` when the
    /// day-of-month/day-of-week "either" rule applies, which systemd cannot express.
    public var calendarEquivalent: String? {
        pattern.dayRule == .either ? nil : pattern.systemdText(zoneName: nil)
    }

    /// The first time strictly after `instant` the expression matches in `zone`, or `nil` if
    /// none before the year 2200.
    public func nextElapse(after instant: Date, in zone: TimeZone) -> Date? {
        pattern.nextElapse(after: instant, in: zone)
    }

    /// The expression text.
    public var description: String { text }

    private static func pattern(fields: [String]) throws(ScheduleError) -> CalendarPattern {
        let minutes = try chain(fields[0], "minute", 0...59)
        let hours = try chain(fields[1], "hour", 0...23)
        let days = try chain(fields[2], "day-of-month", 1...31)
        let months = try chain(fields[3], "month", 1...12, names: monthNames, firstNameValue: 1)
        let weekdayChain = try chain(fields[4], "day-of-week", 0...7, names: weekdayNames, firstNameValue: 0)
        var weekdays: WeekdaySet?
        if let weekdayChain {
            var set = WeekdaySet()
            for component in weekdayChain {
                for number in stride(from: component.start, through: component.stop ?? component.start, by: max(component.step, 1)) {
                    set.insert(WeekdaySet(Weekday(cronNumber: number)!))
                }
            }
            weekdays = set == .all ? nil : set
        }
        // Vixie cron decides by the first character: `*/2` counts as unrestricted too.
        let eitherDay = !fields[2].hasPrefix("*") && !fields[4].hasPrefix("*")
        return CalendarPattern(
            months: months, days: days, weekdays: weekdays,
            hours: hours, minutes: minutes, seconds: [CalendarPattern.Component(0)],
            dayRule: eitherDay ? .either : .both)
    }

    /// One field as a chain of components; `nil` for a bare `*`.
    private static func chain(
        _ field: String, _ name: String, _ range: ClosedRange<Int>, names: [String] = [], firstNameValue: Int = 0
    ) throws(ScheduleError) -> [CalendarPattern.Component]? {
        if field == "*" { return nil }
        func value(_ token: String) throws(ScheduleError) -> Int {
            if let index = names.firstIndex(of: token.lowercased()) { return index + firstNameValue }
            guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(token) else {
                let hint = names.isEmpty ? "" : " or a name such as \(names[1])"
                throw ScheduleError(field: .cron, value: token, reason: "\(name) '\(token)' is not a number\(hint)")
            }
            guard range.contains(number) else {
                throw ScheduleError(
                    field: .cron, value: token, reason: "\(name) \(number) out of range \(range.lowerBound)–\(range.upperBound)")
            }
            return number
        }
        var components: [CalendarPattern.Component] = []
        for item in field.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard !item.isEmpty, parts.count <= 2 else {
                throw ScheduleError(field: .cron, value: field, reason: "\(name) field '\(field)' has an empty or malformed item")
            }
            var step: Int?
            if parts.count == 2 {
                guard let number = Int(parts[1]), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), number > 0 else {
                    throw ScheduleError(field: .cron, value: item, reason: "\(name) step in '\(item)' must be a positive number")
                }
                step = number
            }
            let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            let low: Int, high: Int
            switch (parts[0], bounds.count) {
            case ("*", _): (low, high) = (range.lowerBound, range.upperBound)
            case (_, 1):
                low = try value(bounds[0])
                high = step == nil ? low : range.upperBound
            case (_, 2):
                (low, high) = (try value(bounds[0]), try value(bounds[1]))
                guard low <= high else {
                    throw ScheduleError(field: .cron, value: item, reason: "\(name) range \(parts[0]) runs backwards")
                }
            default:
                throw ScheduleError(field: .cron, value: item, reason: "\(name) '\(item)' is not a value, range or step")
            }
            components.append(low == high ? .init(low) : .init(low, stop: high, step: step ?? 1))
        }
        return CalendarPattern.normalizedChain(components)
    }
}

extension CronExpression {
    /// The text stored and sent for this value.
    public var codableText: String { text }
}
