import ArgumentParser
import Foundation
import Glibc
import LockProtocol

/// `lockctl insights`.
struct InsightsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insights",
        abstract: "Show focus time per day, streaks, goals and what was blocked.",
        discussion: """
            This week by default; --month for this month, --days N for today and the N-1 days before, or \
            --from DATE and --to DATE (inclusive; YYYY-MM-DD or RFC 3339). Days are counted in your time zone.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "This month.")
    var month = false

    @Option(help: "Today and the days before it, this many days in all.")
    var days: Int?

    @Option(help: "First day (YYYY-MM-DD) or time (RFC 3339).")
    var from: String?

    @Option(help: "Last day (YYYY-MM-DD, inclusive) or time (RFC 3339).")
    var to: String?

    @Option(help: "Also write a self-contained HTML page with the charts to this file.")
    var html: String?

    func run() async throws {
        let zone = TimeZone.current
        let window: InsightsWindow
        do { window = try InsightsWindow.resolve(month: month, days: days, from: from, to: to, now: Date(), zone: zone) } catch {
            throw CommandFailure(code: ExitCodes.usage, "\(error)")
        }
        let insights = try await global.call { try await $0.insights(from: window.from, to: window.to, zone: zone.identifier) }
        // Screen time over the same window; a daemon without usage (an older one) leaves it out.
        var usage: [(by: String, response: UsageResponse)] = []
        for by in ["app", "category", "site", "group"] {
            if let response = try? await global.client.usage(from: window.from, to: window.to, by: by, zone: zone.identifier) {
                usage.append((by, response))
            }
        }
        if let html {
            let page = InsightsPage(insights: insights, title: window.title, usage: usage).render()
            do { try Data(page.utf8).write(to: URL(fileURLWithPath: html), options: .atomic) } catch {
                throw CommandFailure(code: ExitCodes.failure, "cannot write \(html): \(error.localizedDescription)")
            }
        }
        if try global.printJSON(InsightsOutput(insights: insights, usage: usage)) { return }
        let environment = ProcessInfo.processInfo.environment
        let colour = isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        print(InsightsChart(insights: insights, title: window.title, colour: colour).render())
        // Against the same length of time just before the window.
        if let current = usage.first(where: { $0.by == "app" })?.response {
            let end = window.to ?? Date()
            let previous = try? await global.client.usage(
                from: window.from.addingTimeInterval(-end.timeIntervalSince(window.from)), to: window.from, zone: zone.identifier)
            for line in UsageSummary.lines(current: current, previous: previous) { print(line) }
        }
        if let html { print("wrote \(html)") }
    }
}

/// `lockctl insights --json`: the daemon's insights with screen time beside them, as
/// `usage: {"app": [{name, seconds}], "category": [...], ...}` (absent when the daemon meters nothing).
struct InsightsOutput: Encodable {
    var insights: InsightsResponse
    var usage: [(by: String, response: UsageResponse)]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        try insights.encode(to: encoder)
        guard !usage.isEmpty else { return }
        var container = encoder.container(keyedBy: Key.self)
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: "usage"))
        for (by, response) in usage { try nested.encode(response.items, forKey: Key(stringValue: by)) }
    }
}
