import Foundation

/// A schedule as clients see it: its definition, and where it stands now.
public struct ScheduleInfo: Sendable, Equatable, Codable {
    /// Identifier.
    public var name: String
    /// The profile it blocks.
    public var profile: String
    /// `weekly`, `calendar` or `cron`.
    public var kind: String
    /// Weekly windows: the days (`mon-fri`).
    public var days: String?
    /// Weekly windows: the start time (`09:00`).
    public var from: String?
    /// Weekly windows: the end time (`12:30`).
    public var to: String?
    /// Calendar schedules: the expression in systemd's normalized form.
    public var on: String?
    /// Cron schedules: the expression.
    public var cron: String?
    /// Calendar and cron schedules: how long each block lasts, in seconds.
    public var seconds: Int?
    /// When it blocks, for people (`mon-fri 09:00–12:30`).
    public var summary: String
    /// The `lockctl schedules add` options that recreate its rule.
    public var flags: String
    /// The zone given with `--tz`, if any.
    public var tz: String?
    /// The zone its rule is evaluated in now: its own as written, else the system's.
    public var timeZone: String
    /// Whether its blocks are strict (its own setting, else the profile's).
    public var strict: Bool
    /// Seconds before each start and end that a warning is sent; 0 for none.
    public var warnSeconds: Int
    /// Disabled schedules block nothing.
    public var enabled: Bool
    /// Where its blocks apply: `local` (this machine), `lan`, device groups; sorted.
    public var target: [String]
    /// An interval of it contains now.
    public var active: Bool
    /// Active, but its block was stopped by hand; it blocks again at its next interval.
    public var stoppedByHand: Bool
    /// Active and strict, but it became strict during this interval without `now`: it blocks
    /// from its next interval (`next`).
    public var strictDeferred: Bool
    /// While active: when its block ends (RFC 3339).
    public var blockEnd: Date?
    /// The next interval starting after the current block, or after now.
    public var next: ScheduleInterval?
    /// The session it owns now, if any.
    public var session: String?
    /// Why it cannot block as it should (a profile that no longer exists), if so.
    public var problem: String?

    /// Creates the value field by field.
    public init(
        name: String, profile: String, kind: String, days: String? = nil, from: String? = nil, to: String? = nil, on: String? = nil,
        cron: String? = nil, seconds: Int? = nil, summary: String, flags: String, tz: String? = nil, timeZone: String, strict: Bool,
        warnSeconds: Int, enabled: Bool, target: [String], active: Bool, stoppedByHand: Bool, strictDeferred: Bool, blockEnd: Date? = nil,
        next: ScheduleInterval? = nil, session: String? = nil, problem: String? = nil
    ) {
        self.name = name
        self.profile = profile
        self.kind = kind
        self.days = days
        self.from = from
        self.to = to
        self.on = on
        self.cron = cron
        self.seconds = seconds
        self.summary = summary
        self.flags = flags
        self.tz = tz
        self.timeZone = timeZone
        self.strict = strict
        self.warnSeconds = warnSeconds
        self.enabled = enabled
        self.target = target
        self.active = active
        self.stoppedByHand = stoppedByHand
        self.strictDeferred = strictDeferred
        self.blockEnd = blockEnd
        self.next = next
        self.session = session
        self.problem = problem
    }
}
