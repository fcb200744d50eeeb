import Foundation
import LockCore
import LockProtocol

/// `lockctl insights --html FILE`: one self-contained page (no scripts, fonts or images from
/// elsewhere) that shows at least what the terminal does: focus, Pomodoros, blocked attempts
/// and early ends per day, the daily goal, weekly progress (each week named by its dates and
/// how much of it the window holds), the sites and apps tried most, and screen time. Light or
/// dark as the reader's system prefers.
struct InsightsPage {
    var insights: InsightsResponse
    var title: String
    /// Screen time over the same window, by grouping (`app`, `category`, `site`); empty when
    /// the daemon has none.
    var usage: [(by: String, response: UsageResponse)] = []

    func render() -> String {
        let zone = TimeZone(identifier: insights.zone) ?? .current
        let totals = insights.totals
        var body =
            "<header>\n<h1>Focus \(esc(title))</h1>\n<p class=\"muted\">\(esc(range(zone: zone))) · days in \(esc(insights.zone))</p>\n"
        body += "<ul class=\"tiles\">"
        body += tile(InsightsChart.hours(totals.focusSeconds), "of focus")
        body += tile("\(totals.pomodoros)", totals.pomodoros == 1 ? "pomodoro" : "pomodoros")
        body += tile("\(totals.siteAttempts + totals.appAttempts)", "blocked attempts")
        body += tile("\(totals.unlocks)", totals.unlocks == 1 ? "early end" : "early ends")
        if let streak = insights.streak, insights.goals.dailySeconds != nil {
            body += tile("\(streak.currentDays)", "day streak" + (streak.todayMet ? "" : " (today not yet)"))
        }
        body += "</ul>\n</header>\n<main>\n"
        body += daySection(zone: zone)
        body += weekSection(zone: zone)
        body += attemptSection("Sites tried most", "Blocked attempts per site", insights.topSites)
        body += attemptSection("Apps tried most", "Blocked attempts per app", insights.topApps)
        body += usageSection()
        let allowance = insights.emergency
        body += "<p class=\"note\">Emergency access: "
        body +=
            allowance.allowed == 0
            ? "no early ends allowed (strict means strict).</p>\n"
            : "\(allowance.used) of \(allowance.allowed) early ends used in the last 7 days.</p>\n"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>SimplyLock insights: \(esc(title))</title>
            <style>
            \(InsightsPageStyle.css)
            </style>
            </head>
            <body>
            \(body)</main>
            </body>
            </html>

            """
    }

    private func daySection(zone: TimeZone) -> String {
        let goal = insights.goals.dailySeconds
        var out = "<section>\n<h2>Per day</h2>\n<ul class=\"legend\">"
        out += "<li><span class=\"swatch focus\"></span>focus time</li>"
        if let goal {
            out += "<li><span class=\"swatch met\"></span>focus on a day the goal was met (✓)</li>"
            out += "<li><span class=\"swatch line\"></span>daily goal, \(esc(InsightsChart.hours(goal)))</li>"
        }
        out += "</ul>\n"
        let scale = max(insights.days.map(\.focusSeconds).max() ?? 0, goal ?? 0, 3600) * 1.08
        let rows = insights.days.map { day in
            InsightsBars.Row(
                label: InsightsChart.dayLabel(day, zone: zone), value: day.focusSeconds, style: day.goalMet == true ? "met" : "focus",
                cells: [
                    InsightsChart.hours(day.focusSeconds) + (day.goalMet == true ? " ✓" : ""), "\(day.pomodoros)",
                    "\(day.siteAttempts + day.appAttempts)", "\(day.unlocks)",
                ])
        }
        let caption = "Focus time per day" + (goal.map { ", against the daily goal of \(InsightsChart.hours($0))" } ?? "")
        out +=
            InsightsBars(
                caption: caption, columns: ["Day", "Focus", "Pomodoros", "Blocked attempts", "Early ends"], rows: rows, scale: scale,
                goal: goal
            ).html()
        return out + "</section>\n"
    }

    private func weekSection(zone: TimeZone) -> String {
        guard let weekly = insights.goals.weeklySeconds, !insights.weeks.isEmpty else { return "" }
        let calendar = Calendar.gregorian(in: zone)
        let formatter = DateFormatter()
        formatter.timeZone = zone
        formatter.dateFormat = "EEE d MMM"
        let rows = insights.weeks.map { week -> InsightsBars.Row in
            var label = "week of \(week.start)"
            var inWindow = ""
            if let monday = Self.date(week.start, calendar: calendar), let sunday = calendar.date(byAdding: .day, value: 6, to: monday),
                let next = calendar.date(byAdding: .day, value: 7, to: monday)
            {
                label = "\(formatter.string(from: monday)) – \(formatter.string(from: sunday))"
                let days = insights.days.filter { $0.start >= monday && $0.start < next }.count
                inWindow = days == 7 ? "" : " (\(days) of its 7 days in this window)"
            }
            let percent = Int((week.focusSeconds / weekly * 100).rounded())
            return InsightsBars.Row(
                label: label + inWindow, value: week.focusSeconds, style: week.goalMet == true ? "met" : "focus",
                cells: [InsightsChart.hours(week.focusSeconds) + (week.goalMet == true ? " ✓" : ""), "\(percent)%"])
        }
        var out = "<section>\n<h2>Weekly goal</h2>\n"
        out += "<p class=\"note\">Each week's focus counts all of its days, also those outside this window.</p>\n"
        out +=
            InsightsBars(
                caption: "Focus per week, against the weekly goal of \(InsightsChart.hours(weekly))",
                columns: ["Week", "Focus", "Of the goal"], rows: rows,
                scale: max(weekly, insights.weeks.map(\.focusSeconds).max() ?? 0) * 1.08,
                goal: weekly
            ).html()
        return out + "</section>\n"
    }

    private func attemptSection(_ heading: String, _ caption: String, _ counts: [InsightsResponse.Count]) -> String {
        guard !counts.isEmpty else { return "" }
        let scale = Double(counts.map(\.attempts).max() ?? 1) * 1.08
        let rows = counts.map { InsightsBars.Row(label: $0.name, value: Double($0.attempts), style: "attempt", cells: ["\($0.attempts)"]) }
        return "<section>\n<h2>\(esc(heading))</h2>\n"
            + InsightsBars(caption: caption, columns: ["Name", "Attempts"], rows: rows, scale: scale, goal: nil).html() + "</section>\n"
    }

    private func usageSection() -> String {
        let shown = usage.filter { !$0.response.items.isEmpty }
        guard !shown.isEmpty else { return "" }
        let names = ["app": "App", "category": "Category", "site": "Site", "group": "Device group"]
        var out = "<section>\n<h2>Screen time</h2>\n"
        out += "<p class=\"note\">Time in use as the daemon's meters counted it (lockctl usage --explain says which meter).</p>\n"
        for (by, response) in shown {
            let items = response.items.prefix(10)
            let scale = Double(items.map(\.seconds).max() ?? 1) * 1.08
            let rows = items.map {
                InsightsBars.Row(
                    label: $0.name, value: Double($0.seconds), style: "usage", cells: [InsightsChart.hours(Double($0.seconds))])
            }
            let name = names[by] ?? by
            out += InsightsBars(
                caption: "Time in use per \(name.lowercased())", columns: [name, "Time"], rows: rows, scale: scale, goal: nil
            ).html()
        }
        return out + "</section>\n"
    }

    /// `Mon 1 Mar – Sun 7 Mar 2027`: the days the window covers.
    private func range(zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = zone
        formatter.dateFormat = "EEE d MMM yyyy"
        guard let first = insights.days.first, let last = insights.days.last else { return "" }
        let noon = { (day: InsightsResponse.Day) in day.start.addingTimeInterval(min(12 * 3600, day.end.timeIntervalSince(day.start) / 2)) }
        return first.date == last.date
            ? formatter.string(from: noon(first)) : "\(formatter.string(from: noon(first))) – \(formatter.string(from: noon(last)))"
    }

    private func tile(_ value: String, _ label: String) -> String { "<li><strong>\(esc(value))</strong> \(esc(label))</li>" }

    private static func date(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    private func esc(_ text: String) -> String { InsightsBars.escape(text) }
}
