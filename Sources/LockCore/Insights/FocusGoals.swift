/// The focus goals a user set: time blocked per day and per week. A day meets the daily goal
/// when its focus time reaches it; a streak is the run of consecutive days that did.
public struct FocusGoals: Sendable, Equatable, Codable {
    /// Focus wanted each day, in seconds; nil for no daily goal.
    public var dailySeconds: Double?
    /// Focus wanted each week (Monday to Sunday), in seconds; nil for no weekly goal.
    public var weeklySeconds: Double?

    /// Creates goals.
    public init(dailySeconds: Double? = nil, weeklySeconds: Double? = nil) {
        self.dailySeconds = dailySeconds
        self.weeklySeconds = weeklySeconds
    }

    /// The longest goal that may be set for a day.
    public static let maxDaily: Double = 86_400
    /// The longest goal that may be set for a week.
    public static let maxWeekly: Double = 7 * 86_400
}

/// Streaks over a run of consecutive days.
public enum Streak {
    /// The current streak over `focus` (seconds per day, oldest first, the last being today):
    /// the consecutive days up to today that met `goal`. Today counts once it meets the goal,
    /// and does not break the streak while it is not over: until midnight, a today that has
    /// not met it yet leaves the streak at the days before. `reachesStart` is true when every
    /// day given counted, so earlier days might extend it.
    public static func current(_ focus: [Double], goal: Double) -> (days: Int, todayMet: Bool, reachesStart: Bool) {
        guard goal > 0, let today = focus.last else { return (0, false, false) }
        let todayMet = today >= goal
        var count = todayMet ? 1 : 0
        var index = focus.count - 2
        while index >= 0, focus[index] >= goal {
            count += 1
            index -= 1
        }
        return (count, todayMet, index < 0 && count > 0)
    }

    /// The longest run of consecutive days in `focus` that met `goal`.
    public static func longest(_ focus: [Double], goal: Double) -> Int {
        guard goal > 0 else { return 0 }
        var best = 0
        var run = 0
        for seconds in focus {
            run = seconds >= goal ? run + 1 : 0
            best = max(best, run)
        }
        return best
    }
}
