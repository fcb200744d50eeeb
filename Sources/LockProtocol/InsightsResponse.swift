import Foundation

/// `GET /v1/insights`: focus time, goals, streaks and blocked attempts over a window, per day
/// in the daemon's time zone (or the one asked for).
public struct InsightsResponse: Sendable, Equatable, Codable {
    /// The window's start (RFC 3339).
    public var from: Date
    /// The window's end (RFC 3339, exclusive).
    public var to: Date
    /// The time zone days are counted in (`Europe/Berlin`).
    public var zone: String
    /// The goals in force.
    public var goals: GoalsInfo
    /// Each day the window touches, oldest first, counted only within the window.
    public var days: [Day]
    /// Each week (Monday to Sunday) the window touches, with its whole focus time.
    public var weeks: [Week]
    /// The sums over the window.
    public var totals: Totals
    /// The current and longest streak of days meeting the daily goal; nil without one.
    public var streak: StreakInfo?
    /// The sites tried most often in the window.
    public var topSites: [Count]
    /// The apps tried most often in the window.
    public var topApps: [Count]
    /// Where the weekly allowance of early ends stands (the configuration's; profiles may set their own).
    public var emergency: AllowanceInfo

    /// One day.
    public struct Day: Sendable, Equatable, Codable {
        /// The civil date (`2027-03-28`).
        public var date: String
        /// Its first instant (local midnight).
        public var start: Date
        /// The next day's first instant: 23 or 25 hours later on days the clocks change.
        public var end: Date
        /// Time some block was in force, overlaps counted once.
        public var focusSeconds: Double
        /// Pomodoro focus phases completed.
        public var pomodoros: Int
        /// Blocked lookups and connections of sites.
        public var siteAttempts: Int
        /// Blocked starts of apps.
        public var appAttempts: Int
        /// Strict blocks ended early through emergency access.
        public var unlocks: Int
        /// Whether it met the daily goal; nil without one.
        public var goalMet: Bool?

        /// Creates a day.
        public init(
            date: String, start: Date, end: Date, focusSeconds: Double, pomodoros: Int, siteAttempts: Int, appAttempts: Int,
            unlocks: Int, goalMet: Bool?
        ) {
            self.date = date
            self.start = start
            self.end = end
            self.focusSeconds = focusSeconds
            self.pomodoros = pomodoros
            self.siteAttempts = siteAttempts
            self.appAttempts = appAttempts
            self.unlocks = unlocks
            self.goalMet = goalMet
        }
    }

    /// One week.
    public struct Week: Sendable, Equatable, Codable {
        /// Its Monday (`2027-03-22`).
        public var start: String
        /// Focus time over the whole week, also where the window covers only part of it.
        public var focusSeconds: Double
        /// Whether it met the weekly goal (so far); nil without one.
        public var goalMet: Bool?

        /// Creates a week.
        public init(start: String, focusSeconds: Double, goalMet: Bool?) {
            self.start = start
            self.focusSeconds = focusSeconds
            self.goalMet = goalMet
        }
    }

    /// Sums over the window.
    public struct Totals: Sendable, Equatable, Codable {
        /// Focus time.
        public var focusSeconds: Double
        /// Pomodoro focus phases completed.
        public var pomodoros: Int
        /// Blocked attempts of sites.
        public var siteAttempts: Int
        /// Blocked attempts of apps.
        public var appAttempts: Int
        /// Early ends.
        public var unlocks: Int

        /// Creates totals.
        public init(focusSeconds: Double, pomodoros: Int, siteAttempts: Int, appAttempts: Int, unlocks: Int) {
            self.focusSeconds = focusSeconds
            self.pomodoros = pomodoros
            self.siteAttempts = siteAttempts
            self.appAttempts = appAttempts
            self.unlocks = unlocks
        }
    }

    /// Streaks of days meeting the daily goal.
    public struct StreakInfo: Sendable, Equatable, Codable {
        /// Consecutive days up to today that met it (today counts once it has; until it is
        /// over, a today that has not yet does not break the streak).
        public var currentDays: Int
        /// The longest run within the window.
        public var longestDays: Int
        /// Whether today met it already.
        public var todayMet: Bool

        /// Creates streaks.
        public init(currentDays: Int, longestDays: Int, todayMet: Bool) {
            self.currentDays = currentDays
            self.longestDays = longestDays
            self.todayMet = todayMet
        }
    }

    /// A name and how often.
    public struct Count: Sendable, Equatable, Codable {
        /// The domain, or the app's id.
        public var name: String
        /// Attempts.
        public var attempts: Int

        /// Creates a count.
        public init(name: String, attempts: Int) {
            self.name = name
            self.attempts = attempts
        }
    }

    /// Creates a response.
    public init(
        from: Date, to: Date, zone: String, goals: GoalsInfo, days: [Day], weeks: [Week], totals: Totals, streak: StreakInfo?,
        topSites: [Count], topApps: [Count], emergency: AllowanceInfo
    ) {
        self.from = from
        self.to = to
        self.zone = zone
        self.goals = goals
        self.days = days
        self.weeks = weeks
        self.totals = totals
        self.streak = streak
        self.topSites = topSites
        self.topApps = topApps
        self.emergency = emergency
    }
}

/// The focus goals (`GET /v1/goals`).
public struct GoalsInfo: Sendable, Equatable, Codable {
    /// Focus wanted per day, in seconds; nil for none.
    public var dailySeconds: Double?
    /// Focus wanted per week (Monday to Sunday), in seconds; nil for none.
    public var weeklySeconds: Double?

    /// Creates goals.
    public init(dailySeconds: Double? = nil, weeklySeconds: Double? = nil) {
        self.dailySeconds = dailySeconds
        self.weeklySeconds = weeklySeconds
    }
}

/// `PATCH /v1/goals`: a positive number sets a goal, 0 removes it, an absent field keeps it.
public struct UpdateGoalsRequest: Sendable, Equatable, Codable {
    /// Seconds of focus per day.
    public var dailySeconds: Double?
    /// Seconds of focus per week.
    public var weeklySeconds: Double?

    /// Creates a request.
    public init(dailySeconds: Double? = nil, weeklySeconds: Double? = nil) {
        self.dailySeconds = dailySeconds
        self.weeklySeconds = weeklySeconds
    }
}

/// Where a weekly allowance of early ends stands.
public struct AllowanceInfo: Sendable, Equatable, Codable {
    /// Early ends in the last seven days that count against it.
    public var used: Int
    /// Early ends allowed in any seven days (0: strict means strict).
    public var allowed: Int
    /// When the next is allowed again, when none is now.
    public var nextFreeAt: Date?

    /// Creates the information.
    public init(used: Int, allowed: Int, nextFreeAt: Date? = nil) {
        self.used = used
        self.allowed = allowed
        self.nextFreeAt = nextFreeAt
    }
}
