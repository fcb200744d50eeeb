import Foundation

/// A time allowance (`lockctl allowances add video-time --profile video --daily 30m`): how long
/// the things a profile blocks may be used per day and/or per week before a block of that
/// profile starts, and how often its apps may be opened.
public struct Allowance: Sendable, Equatable, Codable {
    /// Its name (`video-time`); the block it starts has origin `allowance:NAME`.
    public var name: String
    /// The profile whose apps and sites it meters, and which it blocks when used up.
    public var profile: String
    /// Time allowed per local day.
    public var daily: Duration?
    /// Time allowed per week (weeks start on Monday at local midnight).
    public var weekly: Duration?
    /// The days it applies on; on other days nothing is counted and nothing is limited.
    public var days: WeekdaySet
    /// How long before the time is used up a warning goes out.
    public var warn: Duration?
    /// Whether the block it starts is strict.
    public var strict: Bool
    /// Whose time is counted and where the block applies (`--for kids` uses the group's meter).
    public var target: BlockTarget
    /// How many launches of its apps a day allows.
    public var opens: Int?
    /// The least time between two launches.
    public var cooldown: Duration?

    /// Creates an allowance; `validate()` says whether it makes sense.
    public init(
        name: String, profile: String, daily: Duration? = nil, weekly: Duration? = nil, days: WeekdaySet = .all,
        warn: Duration? = nil, strict: Bool = false, target: BlockTarget = .thisMachine, opens: Int? = nil,
        cooldown: Duration? = nil
    ) {
        self.name = name
        self.profile = profile
        self.daily = daily
        self.weekly = weekly
        self.days = days
        self.warn = warn
        self.strict = strict
        self.target = target
        self.opens = opens
        self.cooldown = cooldown
    }

    /// The first problem with it, naming the field.
    public func validate() throws(FieldError) {
        do { try NameRule.validate(name, kind: "allowance") } catch {
            throw FieldError(field: "name", value: name, reason: error.reason)
        }
        if daily == nil, weekly == nil, opens == nil, cooldown == nil {
            throw FieldError(field: "daily", reason: "give at least one of daily, weekly, opens or cooldown")
        }
        let day = Duration.seconds(86_400)
        for (field, value, most) in [("daily", daily, day), ("weekly", weekly, day * 7), ("cooldown", cooldown, day)] {
            guard let value else { continue }
            guard value >= .seconds(1), value <= most else {
                throw FieldError(
                    field: field, value: DurationParser.format(value),
                    reason: "must be between 1s and \(DurationParser.format(most))")
            }
        }
        if let warn, warn < .seconds(1) || warn > day {
            throw FieldError(field: "warn", value: DurationParser.format(warn), reason: "must be between 1s and 24h")
        }
        if let opens, !(1...1000).contains(opens) {
            throw FieldError(field: "opens", value: String(opens), reason: "must be between 1 and 1000")
        }
        if days.isEmpty { throw FieldError(field: "days", reason: "names no day") }
    }
}
