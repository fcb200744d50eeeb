import Foundation

/// A set of weekdays, as given to `--days` (`mon-fri`, `sat,sun`, `fri-mon`, `weekends`, `all`).
///
/// Bit *n* stands for ISO weekday *n + 1*, the same layout systemd uses for the weekday part
/// of a calendar expression, so the two can be converted without a lookup table.
public struct WeekdaySet: TextCodable, OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// Bit *n* set means ISO weekday *n + 1* is a member.
    public var rawValue: UInt8

    /// Creates a set from its bit pattern; bits above Sunday are dropped.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    /// Creates a set holding the given days.
    public init<S: Sequence>(_ days: S) where S.Element == Weekday {
        self.init(rawValue: 0)
        for day in days { insert(WeekdaySet(day)) }
    }

    /// Creates a set holding one day.
    public init(_ day: Weekday) { self.init(rawValue: 1 << (day.rawValue - 1)) }

    /// Monday to Sunday.
    public static let all = WeekdaySet(rawValue: 0x7F)
    /// Monday to Friday.
    public static let weekdays = WeekdaySet(rawValue: 0x1F)
    /// Saturday and Sunday.
    public static let weekends = WeekdaySet(rawValue: 0x60)

    /// Parses the `--days` syntax: a comma-separated list of day names (`mon`, `monday`),
    /// ranges (`mon-fri`, also `mon..fri`; a range may wrap, so `fri-mon` is Fri, Sat, Sun, Mon)
    /// and the words `all`, `weekdays` and `weekends`. Case does not matter.
    public init(parsing text: String) throws(ScheduleError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw ScheduleError(field: .days, value: text, reason: "no weekdays given (e.g. mon-fri, sat,sun, all)")
        }
        self.init(rawValue: 0)
        for rawToken in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let token = String(rawToken).trimmingCharacters(in: .whitespaces).lowercased()
            switch token {
            case "":
                throw ScheduleError(field: .days, value: trimmed, reason: "\(trimmed) has an empty entry between commas")
            case "all", "every", "daily": formUnion(.all)
            case "weekdays", "workdays": formUnion(.weekdays)
            case "weekends", "weekend": formUnion(.weekends)
            default:
                let bounds = token.contains("..") ? token.components(separatedBy: "..") : token.components(separatedBy: "-")
                guard bounds.count <= 2 else {
                    throw ScheduleError(field: .days, value: token, reason: "\(token) is not a day or a range of days (e.g. mon-fri)")
                }
                let days = try bounds.map { (name: String) throws(ScheduleError) -> Weekday in
                    guard let day = Weekday(name: name) else {
                        throw ScheduleError(
                            field: .days, value: name,
                            reason:
                                "\(name.isEmpty ? "''" : name) is not a weekday (mon, tue, wed, thu, fri, sat, sun, all, weekdays, weekends)"
                        )
                    }
                    return day
                }
                var day = days[0]
                let last = days[days.count - 1]
                // Walking forward with wrap-around is what makes `fri-mon` mean the long weekend.
                while day != last {
                    insert(WeekdaySet(day))
                    day = day.next
                }
                insert(WeekdaySet(last))
            }
        }
    }

    /// Whether `day` is a member.
    public func contains(_ day: Weekday) -> Bool { contains(WeekdaySet(day)) }

    /// The members, Monday first.
    public var days: [Weekday] { Weekday.allCases.filter { contains($0) } }

    /// The canonical `--days` text: `all`, or runs such as `mon-fri`, `sat-sun`, `wed,fri-mon`.
    ///
    /// Printing starts at the first day of a run (not simply at Monday) so that a run wrapping
    /// over the weekend prints as one range (`fri-mon`) and parses back to the same set.
    public var description: String {
        if self == .all { return "all" }
        guard let first = Weekday.allCases.first(where: { contains($0) && !contains($0.previous) })
        else { return "" }
        var parts: [String] = []
        var day = first
        for _ in 0..<7 {
            defer { day = day.next }
            guard contains(day), !contains(day.previous) else { continue }
            var end = day
            while contains(end.next) && end.next != day { end = end.next }
            parts.append(end == day ? day.shortName : "\(day.shortName)-\(end.shortName)")
        }
        return parts.joined(separator: ",")
    }

    /// The weekday prefix of the equivalent systemd calendar expression (`Mon..Fri`, `Sat,Sun`),
    /// or `nil` when every day (or no day) is a member, because systemd then omits the prefix.
    public var systemdText: String? {
        guard self != .all, !isEmpty else { return nil }
        var parts: [String] = []
        var index = 0
        let days = Weekday.allCases
        while index < days.count {
            guard contains(days[index]) else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < days.count && contains(days[end + 1]) { end += 1 }
            switch end - index {
            case 0: parts.append(days[index].systemdName)
            case 1: parts.append(days[index].systemdName + "," + days[end].systemdName)
            default: parts.append(days[index].systemdName + ".." + days[end].systemdName)
            }
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}

extension WeekdaySet {
    /// The text stored and sent for this value.
    public var codableText: String { description }
}
