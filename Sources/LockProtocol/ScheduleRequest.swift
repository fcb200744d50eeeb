/// The body of a request that creates or changes a schedule: the fields only that request has
/// (`Head`: `NewSchedule` or `ScheduleChange`) and the schedule's fields both share, side by side
/// in one flat JSON object. Read either part's fields on the request itself (`request.name`,
/// `request.days`).
@dynamicMemberLookup
public struct ScheduleRequest<Head: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
    /// The fields of this request alone.
    public var head: Head
    /// When and how the schedule blocks.
    public var fields: ScheduleFields

    /// Creates a request from its parts.
    public init(head: Head, fields: ScheduleFields) {
        self.head = head
        self.fields = fields
    }

    // Both parts read and write the same JSON object: the wire has no nesting.
    public init(from decoder: Decoder) throws {
        head = try Head(from: decoder)
        fields = try ScheduleFields(from: decoder)
    }

    public func encode(to encoder: Encoder) throws {
        try head.encode(to: encoder)
        try fields.encode(to: encoder)
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<Head, Value>) -> Value {
        get { head[keyPath: path] }
        set { head[keyPath: path] = newValue }
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<ScheduleFields, Value>) -> Value {
        get { fields[keyPath: path] }
        set { fields[keyPath: path] = newValue }
    }
}

/// `POST /v1/schedules`: create a schedule. Say when in exactly one way: `days`, `from` and
/// `to`; `on` and `seconds`; or `cron` and `seconds`.
public typealias CreateScheduleRequest = ScheduleRequest<NewSchedule>

/// `PATCH /v1/schedules/{name}`: change a schedule. Absent fields stay as they are.
///
/// Saying when: `days`/`from`/`to` change a weekly window part by part (the parts not given are
/// kept), or replace another kind of rule when all three are given; `on` or `cron` replace the
/// rule (with `seconds`, or the current rule's length); `seconds` alone changes how long each
/// block of a calendar or cron rule lasts. `tz` `""` follows the system's zone again. While the
/// schedule's block is strict and running, nothing weakens it: disabling it or moving it to
/// another profile is refused, and the running block keeps its end and strictness.
public typealias UpdateScheduleRequest = ScheduleRequest<ScheduleChange>

/// When and how a schedule blocks: the fields creating and changing one share (all optional:
/// creating takes defaults for those absent, changing keeps them).
public struct ScheduleFields: Sendable, Equatable, Codable {
    /// Weekly window: the days (`mon-fri`, `all`, `sat,sun`).
    public var days: String?
    /// Weekly window: start time (`09:00`).
    public var from: String?
    /// Weekly window: end time (`12:30`; earlier than `from` runs overnight).
    public var to: String?
    /// A systemd calendar expression (`Mon..Fri 09:30`).
    public var on: String?
    /// A five-field cron expression (`0 8-17/2 * * 1-5`).
    public var cron: String?
    /// With `on` or `cron`: how long each block lasts, in whole seconds.
    public var seconds: Double?
    /// Time zone (`Europe/Berlin`); absent: the system's, following it when it changes.
    public var tz: String?
    /// Strict or not; absent takes the profile's default.
    public var strict: Bool?
    /// Seconds before each start and end to warn; absent: the daemon's default, 0: none.
    public var warnSeconds: Double?
    /// A strict schedule whose window is open now (or becomes so by the change) blocks at once
    /// only when this is true; otherwise its first block is its next interval (nobody is locked
    /// in without warning).
    public var now: Bool?

    /// Creates the fields.
    public init(
        days: String? = nil, from: String? = nil, to: String? = nil, on: String? = nil, cron: String? = nil, seconds: Double? = nil,
        tz: String? = nil, strict: Bool? = nil, warnSeconds: Double? = nil, now: Bool? = nil
    ) {
        self.days = days
        self.from = from
        self.to = to
        self.on = on
        self.cron = cron
        self.seconds = seconds
        self.tz = tz
        self.strict = strict
        self.warnSeconds = warnSeconds
        self.now = now
    }
}

/// What only creating a schedule says: its name, profile and where it blocks.
public struct NewSchedule: Sendable, Equatable, Codable {
    /// Identifier (`mornings`).
    public var name: String
    /// The profile to block.
    public var profile: String
    /// Where its blocks apply (`local`, `lan`, device groups); absent: this machine.
    public var target: [String]?

    /// Creates the fields.
    public init(name: String, profile: String, target: [String]? = nil) {
        self.name = name
        self.profile = profile
        self.target = target
    }
}

/// What only changing a schedule says: whether it is enabled, and another profile.
public struct ScheduleChange: Sendable, Equatable, Codable {
    /// Enable or disable it (disabling ends its block, unless that block is strict).
    public var enabled: Bool?
    /// Another profile to block.
    public var profile: String?

    /// Creates the fields.
    public init(enabled: Bool? = nil, profile: String? = nil) {
        self.enabled = enabled
        self.profile = profile
    }
}

extension ScheduleRequest where Head == NewSchedule {
    /// Creates a request to create a schedule.
    public init(
        name: String, profile: String, days: String? = nil, from: String? = nil, to: String? = nil, on: String? = nil,
        cron: String? = nil, seconds: Double? = nil, tz: String? = nil, strict: Bool? = nil, warnSeconds: Double? = nil,
        now: Bool? = nil, target: [String]? = nil
    ) {
        self.init(
            head: NewSchedule(name: name, profile: profile, target: target),
            fields: ScheduleFields(
                days: days, from: from, to: to, on: on, cron: cron, seconds: seconds, tz: tz, strict: strict, warnSeconds: warnSeconds,
                now: now))
    }
}

extension ScheduleRequest where Head == ScheduleChange {
    /// Creates a request to change a schedule.
    public init(
        enabled: Bool? = nil, profile: String? = nil, days: String? = nil, from: String? = nil, to: String? = nil, on: String? = nil,
        cron: String? = nil, seconds: Double? = nil, tz: String? = nil, strict: Bool? = nil, warnSeconds: Double? = nil,
        now: Bool? = nil
    ) {
        self.init(
            head: ScheduleChange(enabled: enabled, profile: profile),
            fields: ScheduleFields(
                days: days, from: from, to: to, on: on, cron: cron, seconds: seconds, tz: tz, strict: strict, warnSeconds: warnSeconds,
                now: now))
    }
}
