/// `POST /v1/schedules`: create a schedule. Say when in exactly one way: `days`, `from` and
/// `to`; `on` and `seconds`; or `cron` and `seconds`.
public struct CreateScheduleRequest: Sendable, Equatable, Codable {
    /// Identifier (`mornings`).
    public var name: String
    /// The profile to block.
    public var profile: String
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
    /// Where its blocks apply (`local`, `lan`, device groups); absent: this machine.
    public var target: [String]?
    /// A strict schedule whose window is open now blocks at once only when this is true;
    /// otherwise its first block is its next interval (nobody is locked in without warning).
    public var now: Bool?

    /// Creates a request.
    public init(
        name: String, profile: String, days: String? = nil, from: String? = nil, to: String? = nil,
        on: String? = nil, cron: String? = nil, seconds: Double? = nil, tz: String? = nil, strict: Bool? = nil,
        warnSeconds: Double? = nil, now: Bool? = nil, target: [String]? = nil
    ) {
        self.now = now
        self.target = target
        self.name = name
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
    }
}
