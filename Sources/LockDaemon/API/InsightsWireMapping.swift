import Foundation
import LockCore
import LockProtocol

// Insights, goals, emergency access and blocked attempts as the API sends them.

extension InsightsResponse {
    init(_ report: InsightsReport) {
        let daily = report.goals.dailySeconds
        let weekly = report.goals.weeklySeconds
        let days = report.days.map { day in
            Day(
                date: day.day.date, start: day.day.start, end: day.day.end, focusSeconds: day.focus.rounded(), pomodoros: day.pomodoros,
                siteAttempts: day.siteAttempts, appAttempts: day.appAttempts, unlocks: day.unlocks,
                goalMet: daily.map { day.focus >= $0 })
        }
        self.init(
            from: report.window.start, to: report.window.end, zone: report.zone.identifier, goals: GoalsInfo(report.goals), days: days,
            weeks: report.weeks.map { week in
                Week(start: week.start, focusSeconds: week.focus.rounded(), goalMet: weekly.map { week.focus >= $0 })
            },
            totals: Totals(
                focusSeconds: report.days.reduce(0) { $0 + $1.focus }.rounded(), pomodoros: report.days.reduce(0) { $0 + $1.pomodoros },
                siteAttempts: report.days.reduce(0) { $0 + $1.siteAttempts },
                appAttempts: report.days.reduce(0) { $0 + $1.appAttempts }, unlocks: report.days.reduce(0) { $0 + $1.unlocks }),
            streak: daily == nil
                ? nil : StreakInfo(currentDays: report.currentStreak, longestDays: report.longestStreak, todayMet: report.todayMet),
            topSites: report.topSites.map { Count(name: $0.name, attempts: $0.count) },
            topApps: report.topApps.map { Count(name: $0.name, attempts: $0.count) },
            emergency: AllowanceInfo(report.allowance))
    }
}

extension GoalsInfo {
    init(_ goals: FocusGoals) {
        self.init(dailySeconds: goals.dailySeconds, weeklySeconds: goals.weeklySeconds)
    }
}

extension AllowanceInfo {
    init(_ status: EmergencyAllowance.Status) {
        self.init(used: status.used, allowed: status.allowed, nextFreeAt: status.nextFree)
    }
}

extension UnlockResponse.Challenge {
    init(_ challenge: UnlockChallenge, at now: ClockReading) {
        let wait = challenge.wait(at: now).seconds
        let expires = now.wall.addingTimeInterval(max(0, (challenge.expires - now.boot).seconds))
        self.init(
            id: challenge.id, pieces: challenge.pieces.map { Piece(position: $0.position, text: $0.text) },
            characters: challenge.text.count,
            notBefore: now.wall.addingTimeInterval(wait), waitSeconds: (wait * 1000).rounded(.up) / 1000, expiresAt: expires)
    }
}

extension Event {
    /// A `site.blocked` or `app.blocked` event.
    init(_ attempt: BlockedAttempt, timeLeft: Duration?) {
        var details: [String: String] = ["name": attempt.name, "source": attempt.source.rawValue]
        if !attempt.detail.isEmpty { details[attempt.kind == .site ? "rule" : "path"] = attempt.detail }
        if !attempt.client.isEmpty { details["client"] = attempt.client }
        if attempt.count > 1 { details["count"] = "\(attempt.count)" }
        var message = "\(attempt.name) blocked"
        if let profile = attempt.profile { message += " by \(profile)" }
        if let timeLeft {
            details["timeLeftSeconds"] = "\(Int(timeLeft.seconds.rounded(.up)))"
            message += " (\(DurationParser.format(timeLeft)) left)"
        }
        self.init(
            type: attempt.kind == .site ? .siteBlocked : .appBlocked, at: attempt.at, message: message, profile: attempt.profile,
            details: details)
    }

    /// An `allowance.open_refused` event: `gaming: no launches of fakegame left today`.
    init(_ attempt: BlockedAttempt, refusal: OpenRefusal) {
        var details: [String: String] = [
            "name": attempt.name, "allowance": refusal.allowance, "reason": refusal.reason.rawValue,
            "until": Timestamp.format(refusal.until), "source": attempt.source.rawValue,
        ]
        if !attempt.detail.isEmpty { details["path"] = attempt.detail }
        if !attempt.client.isEmpty { details["client"] = attempt.client }
        let message: String
        switch refusal.reason {
        case .noOpensLeft:
            message = "\(refusal.allowance): no launches of \(attempt.name) left today"
        case .coolingDown:
            let wait = refusal.wait ?? .zero
            details["waitSeconds"] = "\(Int(wait.seconds.rounded(.up)))"
            message =
                "\(refusal.allowance): \(attempt.name) is cooling down, \(DurationParser.format(.seconds(wait.seconds.rounded(.up)))) left"
        }
        self.init(type: .allowanceOpenRefused, at: attempt.at, message: message, profile: refusal.profile, details: details)
    }
}
