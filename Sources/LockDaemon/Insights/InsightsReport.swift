import Foundation
import LockCore

/// Insights over a window, as domain values: what `GET /v1/insights` and `lockctl insights` show.
public struct InsightsReport: Sendable, Equatable {
    /// One day of the window.
    public struct Day: Sendable, Equatable {
        /// The day, whole.
        public var day: LocalDay
        /// Focus time within the window.
        public var focus: TimeInterval
        /// Pomodoro focus phases completed.
        public var pomodoros: Int
        /// Blocked attempts of sites.
        public var siteAttempts: Int
        /// Blocked attempts of apps.
        public var appAttempts: Int
        /// Early ends.
        public var unlocks: Int
    }

    /// One week touching the window: its Monday and its whole focus time so far.
    public struct Week: Sendable, Equatable {
        /// The Monday it starts on.
        public var start: String
        /// Focus time over the whole week (up to now).
        public var focus: TimeInterval
    }

    /// The window, clipped to now.
    public var window: DateInterval
    /// The zone days are counted in.
    public var zone: TimeZone
    /// The goals in force.
    public var goals: FocusGoals
    /// Each day, oldest first.
    public var days: [Day]
    /// Each week, oldest first.
    public var weeks: [Week]
    /// The current streak of days meeting the daily goal, up to today.
    public var currentStreak: Int
    /// Whether today met the daily goal.
    public var todayMet: Bool
    /// The longest streak within the window.
    public var longestStreak: Int
    /// Sites tried most often.
    public var topSites: [(name: String, count: Int)]
    /// Apps tried most often.
    public var topApps: [(name: String, count: Int)]
    /// The configuration's allowance of early ends.
    public var allowance: EmergencyAllowance.Status

    public static func == (a: InsightsReport, b: InsightsReport) -> Bool {
        a.window == b.window && a.zone == b.zone && a.goals == b.goals && a.days == b.days && a.weeks == b.weeks
            && a.currentStreak == b.currentStreak && a.todayMet == b.todayMet && a.longestStreak == b.longestStreak
            && a.topSites.map(\.name) == b.topSites.map(\.name) && a.topSites.map(\.count) == b.topSites.map(\.count)
            && a.topApps.map(\.name) == b.topApps.map(\.name) && a.topApps.map(\.count) == b.topApps.map(\.count)
            && a.allowance == b.allowance
    }
}

/// Why insights could not be given or goals not set.
public enum InsightsError: Error, Equatable, Sendable {
    /// The window is empty, reversed, in the future or too long.
    case invalidWindow(String)
    /// No time zone has that name.
    case unknownZone(String)
    /// A goal is out of range.
    case invalidGoal(field: String, reason: String)
    /// The state database could not be read or written.
    case storage(StorageFailure)
}
