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
        if let html {
            let page = InsightsPage(insights: insights, title: window.title).render()
            do { try Data(page.utf8).write(to: URL(fileURLWithPath: html), options: .atomic) } catch {
                throw CommandFailure(code: ExitCodes.failure, "cannot write \(html): \(error.localizedDescription)")
            }
        }
        if global.json {
            let usage = await UsageInsight.fetch(global.client, from: window.from, to: window.to, zone: zone.identifier)
            _ = try global.printJSON(InsightsWithUsage(insights: insights, usage: usage))
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let colour = isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        print(InsightsChart(insights: insights, title: window.title, colour: colour).render())
        // Screen time over the same window and the same length before it; a daemon without usage says nothing.
        let end = window.to ?? Date()
        if let usage = try? await global.client.usage(from: window.from, to: window.to, zone: zone.identifier) {
            let previous = try? await global.client.usage(
                from: window.from.addingTimeInterval(-end.timeIntervalSince(window.from)), to: window.from, zone: zone.identifier)
            for line in UsageSummary.lines(current: usage, previous: previous) { print(line) }
        }
        if let html { print("wrote \(html)") }
    }
}
