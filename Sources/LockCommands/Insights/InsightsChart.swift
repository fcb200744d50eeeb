import Foundation
import LockCore
import LockProtocol

/// The terminal rendering of insights: one row a day with a bar of Unicode blocks, the daily
/// goal as a marker in every row, and the numbers aligned after it; then totals, streaks,
/// goals and the sites and apps tried most. Colour only when asked (on a terminal).
struct InsightsChart {
    var insights: InsightsResponse
    var title: String
    var colour: Bool
    var width = 40

    private static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    func render() -> String {
        var lines: [String] = []
        let zone = TimeZone(identifier: insights.zone) ?? .current
        lines.append(bold("Focus \(title)") + dim("  (\(insights.zone))"))
        let goal = insights.goals.dailySeconds
        let scale = max(insights.days.map(\.focusSeconds).max() ?? 0, goal ?? 0, 3600) * 1.08
        let marker = goal.map { Int(($0 / scale * Double(width)).rounded()) }
        var rows: [[String]] = []
        for day in insights.days {
            let bar = self.bar(day.focusSeconds, scale: scale, marker: marker, met: day.goalMet == true)
            var extras: [String] = []
            if day.pomodoros > 0 { extras.append("\(day.pomodoros) pomodoro\(day.pomodoros == 1 ? "" : "s")") }
            let attempts = day.siteAttempts + day.appAttempts
            if attempts > 0 { extras.append("\(attempts) blocked") }
            if day.unlocks > 0 { extras.append("\(day.unlocks) early end\(day.unlocks == 1 ? "" : "s")") }
            rows.append([
                Self.dayLabel(day, zone: zone), bar, Self.hours(day.focusSeconds), day.goalMet == true ? green("✓") : " ",
                extras.joined(separator: ", "),
            ])
        }
        lines.append(Self.align(rows))
        if let goal {
            let axis =
                String(repeating: " ", count: 10) + String(repeating: " ", count: max(0, marker ?? 0)) + "└ daily goal \(Self.hours(goal))"
            lines.append(dim(axis))
        }
        lines.append("")
        let totals = insights.totals
        var summary = ["\(Self.hours(totals.focusSeconds)) of focus"]
        summary.append("\(totals.pomodoros) pomodoro\(totals.pomodoros == 1 ? "" : "s")")
        summary.append(
            "\(totals.siteAttempts + totals.appAttempts) blocked attempt\(totals.siteAttempts + totals.appAttempts == 1 ? "" : "s")")
        summary.append("\(totals.unlocks) early end\(totals.unlocks == 1 ? "" : "s")")
        lines.append("Total     " + summary.joined(separator: " · "))
        if let goal, let streak = insights.streak {
            let met = insights.days.filter { $0.goalMet == true }.count
            lines.append(
                "Daily     goal \(Self.hours(goal)): met on \(met) of \(insights.days.count) day\(insights.days.count == 1 ? "" : "s")"
                    + " · streak \(streak.currentDays) day\(streak.currentDays == 1 ? "" : "s")"
                    + (streak.todayMet ? "" : " (today not yet)") + " · longest here \(streak.longestDays)")
        } else {
            lines.append(dim("Daily     no goal (set one: lockctl goals set --daily 3h)"))
        }
        if let weekly = insights.goals.weeklySeconds {
            for week in insights.weeks {
                let percent = Int((week.focusSeconds / weekly * 100).rounded())
                lines.append(
                    "Week      of \(week.start): \(Self.hours(week.focusSeconds)) of \(Self.hours(weekly)) (\(percent)%)"
                        + (week.goalMet == true ? " " + green("✓") : ""))
            }
        }
        if !insights.topSites.isEmpty {
            lines.append("Sites     " + insights.topSites.prefix(5).map { "\($0.name) \($0.attempts)" }.joined(separator: ", "))
        }
        if !insights.topApps.isEmpty {
            lines.append("Apps      " + insights.topApps.prefix(5).map { "\($0.name) \($0.attempts)" }.joined(separator: ", "))
        }
        let allowance = insights.emergency
        lines.append(
            "Emergency "
                + (allowance.allowed == 0
                    ? "no early ends allowed (strict means strict)"
                    : "\(allowance.used) of \(allowance.allowed) early end\(allowance.allowed == 1 ? "" : "s") used in the last 7 days"))
        return lines.joined(separator: "\n")
    }

    /// A bar of `width` cells: full blocks, one partial block, then spaces, with the goal's
    /// cell drawn as `│` where the bar does not reach it.
    func bar(_ seconds: Double, scale: Double, marker: Int?, met: Bool) -> String {
        let eighthsTotal = Int((seconds / scale * Double(width * 8)).rounded())
        let full = min(width, eighthsTotal / 8)
        var cells = Array(repeating: "█", count: full)
        if full < width, eighthsTotal % 8 > 0 { cells.append(Self.eighths[eighthsTotal % 8]) }
        let filled = cells.count
        while cells.count < width { cells.append(" ") }
        var text = cells[..<filled].joined()
        var rest = cells[filled...].map { $0 }
        if let marker, marker >= filled, marker < width { rest[marker - filled] = "│" }
        if met { text = green(text) } else if seconds > 0 { text = cyan(text) }
        if let marker, marker >= filled, marker < width {
            let before = rest[..<(marker - filled)].joined()
            let after = rest[(marker - filled + 1)...].joined()
            return text + before + yellow("│") + after
        }
        return text + rest.joined()
    }

    static func dayLabel(_ day: InsightsResponse.Day, zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = zone
        formatter.dateFormat = "EEE MM-dd"
        // Noon is inside the day whatever its length.
        return formatter.string(from: day.start.addingTimeInterval(min(12 * 3600, day.end.timeIntervalSince(day.start) / 2)))
    }

    /// `2h 05m`, `45m`, `0m`.
    static func hours(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? String(format: "%dh %02dm", minutes / 60, minutes % 60) : "\(minutes)m"
    }

    /// Columns padded to their widest cell, counting characters as the terminal shows them
    /// (colour codes take no room).
    static func align(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], visibleWidth(cell)) } }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - visibleWidth(cell) + 1)
            }.joined().replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    static func visibleWidth(_ text: String) -> Int {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression).count
    }

    private func paint(_ text: String, _ code: String) -> String { colour && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    private func bold(_ text: String) -> String { paint(text, "1") }
    private func dim(_ text: String) -> String { paint(text, "2") }
    private func green(_ text: String) -> String { paint(text, "32") }
    private func cyan(_ text: String) -> String { paint(text, "36") }
    private func yellow(_ text: String) -> String { paint(text, "33") }
}
