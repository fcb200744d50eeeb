import Foundation

/// `POST /v1/allowances`: a new time allowance (durations in whole seconds).
public struct CreateAllowanceRequest: Sendable, Equatable, Codable {
    /// Identifier (`video-time`).
    public var name: String
    /// The profile it meters and blocks.
    public var profile: String
    /// Seconds per local day.
    public var dailySeconds: Double?
    /// Seconds per week (from Monday 00:00).
    public var weeklySeconds: Double?
    /// The days it applies on (`mon-fri`); absent: every day.
    public var days: String?
    /// Seconds before the time is used up to warn.
    public var warnSeconds: Double?
    /// Whether its block is strict.
    public var strict: Bool?
    /// Whose time and where it blocks (`local`, device groups); absent: this machine.
    public var target: [String]?
    /// Launches of its apps per day.
    public var opens: Int?
    /// Least seconds between launches.
    public var cooldownSeconds: Double?

    /// Creates a request.
    public init(
        name: String, profile: String, dailySeconds: Double? = nil, weeklySeconds: Double? = nil, days: String? = nil,
        warnSeconds: Double? = nil, strict: Bool? = nil, target: [String]? = nil, opens: Int? = nil, cooldownSeconds: Double? = nil
    ) {
        self.name = name
        self.profile = profile
        self.dailySeconds = dailySeconds
        self.weeklySeconds = weeklySeconds
        self.days = days
        self.warnSeconds = warnSeconds
        self.strict = strict
        self.target = target
        self.opens = opens
        self.cooldownSeconds = cooldownSeconds
    }
}

/// One time allowance with what is used and left.
public struct TimeAllowanceInfo: Sendable, Equatable, Codable {
    public var name: String
    public var profile: String
    public var dailySeconds: Double?
    public var weeklySeconds: Double?
    /// `mon-fri`, `all`.
    public var days: String
    public var warnSeconds: Double?
    public var strict: Bool
    public var target: [String]
    public var opens: Int?
    public var cooldownSeconds: Double?
    /// Time used today and this week.
    public var usedTodaySeconds: Double
    public var usedThisWeekSeconds: Double
    /// Time left before its block starts (nil when it limits no time).
    public var leftSeconds: Double?
    /// When its time comes back (RFC 3339).
    public var resetsAt: Date
    /// Launches today.
    public var opensToday: Int
    /// Launches left today (absent when it limits none).
    public var opensLeft: Int?
    /// Seconds to wait before the next launch (absent when no cooldown runs).
    public var cooldownLeftSeconds: Double?
    /// Whether its block is in force.
    public var blocking: Bool
    /// Whether something it counts was in use at the last meter report.
    public var inUse: Bool

    /// Creates an entry.
    public init(
        name: String, profile: String, dailySeconds: Double?, weeklySeconds: Double?, days: String, warnSeconds: Double?,
        strict: Bool, target: [String], opens: Int?, cooldownSeconds: Double?, usedTodaySeconds: Double, usedThisWeekSeconds: Double,
        leftSeconds: Double?, resetsAt: Date, opensToday: Int, opensLeft: Int? = nil, cooldownLeftSeconds: Double? = nil, blocking: Bool,
        inUse: Bool
    ) {
        self.opensLeft = opensLeft
        self.cooldownLeftSeconds = cooldownLeftSeconds
        self.name = name
        self.profile = profile
        self.dailySeconds = dailySeconds
        self.weeklySeconds = weeklySeconds
        self.days = days
        self.warnSeconds = warnSeconds
        self.strict = strict
        self.target = target
        self.opens = opens
        self.cooldownSeconds = cooldownSeconds
        self.usedTodaySeconds = usedTodaySeconds
        self.usedThisWeekSeconds = usedThisWeekSeconds
        self.leftSeconds = leftSeconds
        self.resetsAt = resetsAt
        self.opensToday = opensToday
        self.blocking = blocking
        self.inUse = inUse
    }
}

/// `GET /v1/allowances`.
public struct TimeAllowanceList: Sendable, Equatable, Codable {
    public var allowances: [TimeAllowanceInfo]
    public init(allowances: [TimeAllowanceInfo]) { self.allowances = allowances }
}
