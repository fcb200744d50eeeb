import LockCore

/// A change to a schedule (`lockctl schedules edit`, `PATCH /v1/schedules/{name}`): absent
/// fields stay as they are.
public struct ScheduleEdit: Sendable, Equatable {
    /// Another profile to block.
    public var profile: String?
    /// Weekly window parts; a part not given is kept from the current weekly window.
    public var days: String?
    public var from: String?
    public var to: String?
    /// A calendar or cron expression instead of the current rule.
    public var on: String?
    public var cron: String?
    /// How long each block of a calendar or cron rule lasts.
    public var duration: Duration?
    /// A zone of its own; an empty name goes back to the system's zone.
    public var timeZoneName: String?
    /// Strict or not.
    public var strict: Bool?
    /// Warning lead (zero: none).
    public var warning: Duration?
    /// Enabled or not.
    public var enabled: Bool?

    /// Creates an edit.
    public init(
        profile: String? = nil, days: String? = nil, from: String? = nil, to: String? = nil, on: String? = nil,
        cron: String? = nil, duration: Duration? = nil, timeZoneName: String? = nil, strict: Bool? = nil,
        warning: Duration? = nil, enabled: Bool? = nil
    ) {
        self.profile = profile
        self.days = days
        self.from = from
        self.to = to
        self.on = on
        self.cron = cron
        self.duration = duration
        self.timeZoneName = timeZoneName
        self.strict = strict
        self.warning = warning
        self.enabled = enabled
    }

    /// True when it changes nothing.
    public var isEmpty: Bool { self == ScheduleEdit() }

    /// `schedule` with the edit applied, checked as a new schedule would be (the first bad
    /// value is refused with its field). A weekly window keeps the parts not given; a calendar
    /// or cron rule keeps its expression when only its length changes, and its length when
    /// only its expression does.
    public func applied(to schedule: Schedule) throws(FieldError) -> Schedule {
        var days = self.days, from = self.from, to = self.to, on = self.on, cron = self.cron, duration = self.duration
        let weeklyParts = days != nil || from != nil || to != nil
        let saysWhen = weeklyParts || on != nil || cron != nil
        switch schedule.rule {
        case .weekly(let window):
            if !saysWhen, let duration {
                throw FieldError(
                    field: "for", value: DurationParser.formatExact(duration),
                    reason: "applies to --on and --cron only; a weekly window ends at --to")
            }
            if !saysWhen || (weeklyParts && on == nil && cron == nil) {
                days = days ?? window.days.description
                from = from ?? window.from.description
                to = to ?? window.to.description
            }
        case .calendar(let spec, let length):
            if !saysWhen { on = spec.normalizedText }
            if on != nil || cron != nil { duration = duration ?? length }
        case .cron(let expression, let length):
            if !saysWhen { cron = expression.text }
            if on != nil || cron != nil { duration = duration ?? length }
        }
        var zone = schedule.timeZoneName
        if let timeZoneName { zone = timeZoneName.isEmpty ? nil : timeZoneName }
        return try Schedule(
            name: schedule.name, profile: profile ?? schedule.profile, days: days, from: from, to: to, on: on,
            cron: cron, duration: duration, timeZoneName: zone, strict: strict ?? schedule.strict,
            warning: warning ?? schedule.warning, enabled: enabled ?? schedule.enabled)
    }
}
