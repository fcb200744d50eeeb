/// `PATCH /v1/schedules/{name}`: change a schedule. Absent fields stay as they are.
///
/// Saying when: `days`/`from`/`to` change a weekly window part by part (the parts not given are
/// kept), or replace another kind of rule when all three are given; `on` or `cron` replace the
/// rule (with `seconds`, or the current rule's length); `seconds` alone changes how long each
/// block of a calendar or cron rule lasts. While the schedule's block is strict and running,
/// nothing weakens it: disabling it or moving it to another profile is refused, and the
/// running block keeps its end and strictness.
public struct UpdateScheduleRequest: Sendable, Equatable, Codable {
    /// Enable or disable it (disabling ends its block, unless that block is strict).
    public var enabled: Bool?
    /// Another profile to block.
    public var profile: String?
    /// Weekly window: days.
    public var days: String?
    /// Weekly window: start time.
    public var from: String?
    /// Weekly window: end time.
    public var to: String?
    /// A calendar expression instead of the current rule.
    public var on: String?
    /// A cron expression instead of the current rule.
    public var cron: String?
    /// How long each block of a calendar or cron rule lasts, in seconds.
    public var seconds: Double?
    /// A time zone of its own; `""` follows the system's zone again.
    public var tz: String?
    /// Strict or not.
    public var strict: Bool?
    /// Warning lead in seconds (0: none).
    public var warnSeconds: Double?
    /// When the change makes a strict schedule's open window block, start that block now;
    /// without it the first strict block is the next interval.
    public var now: Bool?

    /// Creates a request.
    public init(
        enabled: Bool? = nil, profile: String? = nil, days: String? = nil, from: String? = nil, to: String? = nil,
        on: String? = nil, cron: String? = nil, seconds: Double? = nil, tz: String? = nil, strict: Bool? = nil,
        warnSeconds: Double? = nil, now: Bool? = nil
    ) {
        self.enabled = enabled
        self.profile = profile
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
