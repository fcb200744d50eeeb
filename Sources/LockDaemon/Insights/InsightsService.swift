import Foundation
import LockCore
import LockStore

/// Focus time, goals, streaks and blocked attempts, from what the daemon recorded: the
/// history of sessions (manual, scheduled, Pomodoro), completed Pomodoro phases, blocked
/// attempts and early ends.
public struct InsightsService: Sendable {
    let store: StateStore
    /// Knows the friction policy in force (for the allowance in the report).
    let emergency: EmergencyAccess
    let clock: @Sendable () -> ClockReading
    let zone: @Sendable () -> TimeZone

    /// Where the goals are kept in the state database.
    static let goalsKey = "insights.goals"
    /// The longest window one request may ask for.
    public static let maxWindow: TimeInterval = 367 * 86_400
    /// How many sites and apps the report names.
    static let topCount = 10

    // MARK: - Goals

    /// The goals in force.
    public func goals() throws(InsightsError) -> FocusGoals {
        do { return try store.value(FocusGoals.self, forKey: Self.goalsKey) ?? FocusGoals() } catch {
            throw .storage(StorageFailure(error))
        }
    }

    /// Sets (a positive number of seconds) or removes (0) each goal given; nil keeps it.
    public func updateGoals(daily: Double?, weekly: Double?) throws(InsightsError) -> FocusGoals {
        func checked(_ value: Double?, _ field: String, limit: Double) throws(InsightsError) -> Double?? {
            guard let value else { return .none }
            guard value.isFinite, value >= 0 else { throw .invalidGoal(field: field, reason: "\(value) is not a number of seconds") }
            guard value <= limit else {
                throw .invalidGoal(
                    field: field,
                    reason:
                        "\(DurationParser.format(.seconds(Int64(min(value, 1e12))))) is longer than \(DurationParser.format(.seconds(Int64(limit))))"
                )
            }
            return .some(value == 0 ? nil : value.rounded())
        }
        let newDaily = try checked(daily, "daily", limit: FocusGoals.maxDaily)
        let newWeekly = try checked(weekly, "weekly", limit: FocusGoals.maxWeekly)
        var goals = try goals()
        if let newDaily { goals.dailySeconds = newDaily }
        if let newWeekly { goals.weeklySeconds = newWeekly }
        do { try store.setValue(goals, forKey: Self.goalsKey) } catch { throw .storage(StorageFailure(error)) }
        return goals
    }

    // MARK: - Report

    /// Insights from `from` (default: this week's Monday) to `to` (default and at most: now),
    /// per day in `zoneName` (default: the system's zone).
    public func report(from: Date?, to: Date?, zoneName: String?) async throws(InsightsError) -> InsightsReport {
        let now = clock()
        let zone: TimeZone
        if let zoneName {
            guard let named = TimeZone(identifier: zoneName) else { throw .unknownZone(zoneName) }
            zone = named
        } else {
            zone = self.zone()
        }
        let calendar = Calendar.gregorian(in: zone)
        let start = from ?? Self.weekStart(containing: now.wall, calendar: calendar)
        let end = min(to ?? now.wall, now.wall)
        guard start < end else {
            throw .invalidWindow(
                start >= now.wall ? "from: \(ISO8601DateFormatter().string(from: start)) is not in the past" : "from must be before to")
        }
        guard end.timeIntervalSince(start) <= Self.maxWindow else {
            throw .invalidWindow("the window is longer than 367 days; ask for a year at most")
        }
        let window = DateInterval(start: start, end: end)
        let goals = try goals()
        do {
            return try await build(window: window, now: now, zone: zone, calendar: calendar, goals: goals)
        } catch let error as InsightsError {
            throw error
        } catch {
            throw .storage(StorageFailure(error))
        }
    }

    private func build(
        window: DateInterval, now: ClockReading, zone: TimeZone, calendar: Calendar,
        goals: FocusGoals
    ) async throws -> InsightsReport {
        // Whole weeks for the weekly goal, and two months before today for the streak
        // (reaching further back only when the streak does).
        let today = LocalDay.containing(now.wall, in: zone)
        let weekStart = Self.weekStart(containing: window.start, calendar: calendar)
        var lookback: TimeInterval = 62 * 86_400
        var rangeStart = min(weekStart, today.start.addingTimeInterval(-lookback))
        var (days, focus, spans) = try focusPerDay(DateInterval(start: rangeStart, end: now.wall), now: now, zone: zone)
        var streak = Streak.current(focus, goal: goals.dailySeconds ?? 0)
        while streak.reachesStart, lookback < 4000 * 86_400 {
            lookback *= 4
            rangeStart = min(weekStart, today.start.addingTimeInterval(-lookback))
            (days, focus, spans) = try focusPerDay(DateInterval(start: rangeStart, end: now.wall), now: now, zone: zone)
            streak = Streak.current(focus, goal: goals.dailySeconds ?? 0)
        }

        // Days of the window, counted within it.
        // The range's days, reused: it starts on or before the window's first day.
        let windowDays = days.filter { $0.end > window.start && $0.start < window.end }
        let clipped = windowDays.map { day in
            LocalDay(date: day.date, start: max(day.start, window.start), end: min(day.end, window.end))
        }
        // The range starts at the window's Monday or earlier and ends now: its sessions cover the window's.
        let windowFocus = FocusLedger.perDay(spans, days: clipped)
        let pomodoros = FocusLedger.countPerDay(try store.pomodoroCompletions(in: window), days: clipped)
        let records = try store.unlockRecords()
        let unlocks = FocusLedger.countPerDay(records.map(\.at).filter { window.contains($0) }, days: clipped)
        let attempts = try store.attemptsPerDay(clipped.map { DateInterval(start: $0.start, end: $0.end) })
        let sites = attempts.map(\.sites)
        let apps = attempts.map(\.apps)
        let reportDays = windowDays.indices.map { index in
            InsightsReport.Day(
                day: windowDays[index], focus: windowFocus[index], pomodoros: pomodoros[index], siteAttempts: sites[index],
                appAttempts: apps[index], unlocks: unlocks[index])
        }

        // Weeks: whole-week focus from the extended range's days.
        var weeks: [InsightsReport.Week] = []
        var weekIndex: [String: Int] = [:]
        var monday = LocalDay.civilDate(weekStart, calendar: calendar)
        for (index, day) in days.enumerated() where day.end > weekStart && day.start < window.end {
            // A new week begins on each Monday (the first day of the loop is the window's Monday).
            if index > 0, calendar.component(.weekday, from: day.start) == 2 { monday = day.date }
            if let existing = weekIndex[monday] {
                weeks[existing].focus += focus[index]
            } else {
                weekIndex[monday] = weeks.count
                weeks.append(.init(start: monday, focus: focus[index]))
            }
        }
        let windowDailyTotals = windowFocus
        let policy = await emergency.defaultPolicy
        return InsightsReport(
            window: window, zone: zone, goals: goals, days: reportDays, weeks: weeks,
            currentStreak: streak.days, todayMet: streak.todayMet,
            longestStreak: Streak.longest(windowDailyTotals, goal: goals.dailySeconds ?? 0),
            topSites: try store.topAttempts(.site, in: window, limit: Self.topCount),
            topApps: try store.topAttempts(.app, in: window, limit: Self.topCount),
            allowance: EmergencyAllowance.status(records, policy: policy, at: now))
    }

    /// Days of `range` with the focus time of each, and the spans of the sessions in it.
    private func focusPerDay(_ range: DateInterval, now: ClockReading, zone: TimeZone) throws -> ([LocalDay], [Double], [DateInterval]) {
        let days = LocalDay.days(covering: range, in: zone)
        let clippedRange = days.map { LocalDay(date: $0.date, start: max($0.start, range.start), end: min($0.end, range.end)) }
        let spans = try store.sessionSpans(overlapping: range).map { Self.inForce($0, now: now.wall) }
        return (days, FocusLedger.perDay(spans, days: clippedRange), spans)
    }

    /// When a session was in force: from its start to its end, or now while it is active, but
    /// never past its planned end (an end noticed late, after a suspend or while the daemon was
    /// not running, is not focus time beyond what was planned).
    static func inForce(_ span: (start: Date, end: Date?, plannedEnd: Date), now: Date) -> DateInterval {
        let end = min(span.end ?? now, now, max(span.plannedEnd, span.start))
        return DateInterval(start: span.start, end: max(span.start, end))
    }

    /// The Monday 00:00 of the week containing `instant`.
    static func weekStart(containing instant: Date, calendar: Calendar) -> Date {
        calendar.dateInterval(of: .weekOfYear, for: instant)?.start ?? calendar.startOfDay(for: instant)
    }
}
