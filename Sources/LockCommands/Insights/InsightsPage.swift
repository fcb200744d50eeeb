import Foundation
import LockProtocol

/// `lockctl insights --html FILE`: one self-contained page (no scripts, fonts or images from
/// elsewhere) with the terminal's charts drawn as SVG: focus per day with the daily goal as a
/// line, weekly progress, and the sites and apps tried most.
struct InsightsPage {
    var insights: InsightsResponse
    var title: String

    func render() -> String {
        let zone = TimeZone(identifier: insights.zone) ?? .current
        let totals = insights.totals
        var body = "<h1>Focus \(escape(title))</h1>\n<p class=\"zone\">\(escape(insights.zone)) · "
        body += "\(escape(InsightsChart.hours(totals.focusSeconds))) of focus · \(totals.pomodoros) pomodoros · "
        body += "\(totals.siteAttempts + totals.appAttempts) blocked attempts · \(totals.unlocks) early ends</p>\n"
        body += "<h2>Focus per day</h2>\n" + dayChart(zone: zone)
        if let streak = insights.streak, let goal = insights.goals.dailySeconds {
            body += "<p>Daily goal \(escape(InsightsChart.hours(goal))): streak <strong>\(streak.currentDays)</strong> day"
            body += streak.currentDays == 1 ? "" : "s"
            body += streak.todayMet ? "" : " (today not yet)"
            body += ", longest here \(streak.longestDays).</p>\n"
        }
        if let weekly = insights.goals.weeklySeconds, !insights.weeks.isEmpty {
            body +=
                "<h2>Weekly goal</h2>\n"
                + barList(
                    insights.weeks.map { ("week of \($0.start)", $0.focusSeconds, InsightsChart.hours($0.focusSeconds)) },
                    scale: max(weekly, insights.weeks.map(\.focusSeconds).max() ?? 0), goal: weekly)
        }
        if !insights.topSites.isEmpty {
            body +=
                "<h2>Sites tried most</h2>\n"
                + barList(
                    insights.topSites.map { ($0.name, Double($0.attempts), "\($0.attempts)") },
                    scale: Double(insights.topSites.map(\.attempts).max() ?? 1), goal: nil)
        }
        if !insights.topApps.isEmpty {
            body +=
                "<h2>Apps tried most</h2>\n"
                + barList(
                    insights.topApps.map { ($0.name, Double($0.attempts), "\($0.attempts)") },
                    scale: Double(insights.topApps.map(\.attempts).max() ?? 1), goal: nil)
        }
        let allowance = insights.emergency
        body += "<p class=\"zone\">Emergency access: "
        body +=
            allowance.allowed == 0
            ? "no early ends allowed.</p>\n" : "\(allowance.used) of \(allowance.allowed) early ends used in the last 7 days.</p>\n"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>SimplyLock insights: \(escape(title))</title>
            <style>
            body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 2em auto; max-width: 56em; color: #1d2733; background: #fbfbf8; }
            h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
            .zone { color: #5b6673; } svg text { font-family: inherit; font-size: 12px; fill: #1d2733; }
            .bar { fill: #3a8fb7; } .met { fill: #3f9d5a; } .goal { stroke: #d08a1e; stroke-width: 2; stroke-dasharray: 4 3; }
            .track { fill: #e8ebe6; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private func dayChart(zone: TimeZone) -> String {
        let goal = insights.goals.dailySeconds
        let scale = max(insights.days.map(\.focusSeconds).max() ?? 0, goal ?? 0, 3600) * 1.08
        let rows = insights.days.map { day in
            (
                InsightsChart.dayLabel(day, zone: zone), day.focusSeconds,
                InsightsChart.hours(day.focusSeconds) + (day.goalMet == true ? " ✓" : ""),
                day.goalMet == true
            )
        }
        return svg(rows: rows, scale: scale, goal: goal, goalLabel: goal.map { "goal \(InsightsChart.hours($0))" })
    }

    private func barList(_ items: [(String, Double, String)], scale: Double, goal: Double?) -> String {
        svg(
            rows: items.map { item in (item.0, item.1, item.2, goal.map { item.1 >= $0 } ?? false) }, scale: scale * 1.08, goal: goal,
            goalLabel: goal.map { "goal \(InsightsChart.hours($0))" })
    }

    /// Horizontal bars, one row each, with an optional dashed goal line across all rows.
    private func svg(rows: [(label: String, value: Double, text: String, met: Bool)], scale: Double, goal: Double?, goalLabel: String?)
        -> String
    {
        let labelWidth = 170.0
        let barWidth = 480.0
        let rowHeight = 24.0
        let top = goal == nil ? 4.0 : 22.0
        let height = top + rowHeight * Double(rows.count) + 6
        var out =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(labelWidth + barWidth + 120))\" height=\"\(Int(height))\" role=\"img\">\n"
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * Double(index)
            let width = scale > 0 ? max(0, min(barWidth, row.value / scale * barWidth)) : 0
            out += "<text x=\"0\" y=\"\(format(y + 16))\">\(escape(row.label))</text>"
            out +=
                "<rect class=\"track\" x=\"\(format(labelWidth))\" y=\"\(format(y + 4))\" width=\"\(format(barWidth))\" height=\"16\" rx=\"2\"/>"
            out +=
                "<rect class=\"\(row.met ? "met" : "bar")\" x=\"\(format(labelWidth))\" y=\"\(format(y + 4))\" width=\"\(format(width))\" height=\"16\" rx=\"2\"/>"
            out += "<text x=\"\(format(labelWidth + barWidth + 8))\" y=\"\(format(y + 16))\">\(escape(row.text))</text>\n"
        }
        if let goal, scale > 0 {
            let x = labelWidth + min(barWidth, goal / scale * barWidth)
            out += "<line class=\"goal\" x1=\"\(format(x))\" y1=\"\(format(top - 2))\" x2=\"\(format(x))\" y2=\"\(format(height - 2))\"/>"
            out += "<text x=\"\(format(x + 4))\" y=\"13\">\(escape(goalLabel ?? ""))</text>\n"
        }
        return out + "</svg>\n"
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
