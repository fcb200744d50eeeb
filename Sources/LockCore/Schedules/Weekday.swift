/// A day of the week, numbered as ISO 8601 does (Monday 1 … Sunday 7).
///
/// ISO numbering is used rather than cron's or Foundation's (both start at Sunday) because
/// systemd calendar expressions and the `--days mon-fri` syntax both treat Monday as the
/// first day, which makes ranges such as `Mon..Fri` plain integer ranges.
public enum Weekday: Int, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    /// Monday.
    case monday = 1
    /// Tuesday.
    case tuesday
    /// Wednesday.
    case wednesday
    /// Thursday.
    case thursday
    /// Friday.
    case friday
    /// Saturday.
    case saturday
    /// Sunday.
    case sunday

    /// Parses an English day name, full (`monday`) or three letters (`mon`), in any case.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let day = Weekday.allCases.first(where: { $0.fullName == lowered || $0.shortName == lowered })
        else { return nil }
        self = day
    }

    /// Creates a weekday from cron's numbering, where both 0 and 7 mean Sunday.
    public init?(cronNumber: Int) {
        switch cronNumber {
        case 0, 7: self = .sunday
        case 1...6: self.init(rawValue: cronNumber)
        default: return nil
        }
    }

    /// The lowercase three-letter name used by `--days` (`mon`).
    public var shortName: String { String(fullName.prefix(3)) }

    /// The lowercase full name (`monday`).
    public var fullName: String {
        switch self {
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        case .sunday: "sunday"
        }
    }

    /// The capitalised three-letter name systemd prints (`Mon`).
    public var systemdName: String { shortName.prefix(1).uppercased() + shortName.dropFirst() }

    /// The day after this one, wrapping from Sunday to Monday.
    public var next: Weekday { Weekday(rawValue: rawValue % 7 + 1)! }

    /// The day before this one, wrapping from Monday to Sunday.
    public var previous: Weekday { Weekday(rawValue: (rawValue + 5) % 7 + 1)! }

    /// The three-letter name (`mon`).
    public var description: String { shortName }

    /// Earlier in the ISO week (Monday first).
    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}
