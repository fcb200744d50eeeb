import ArgumentParser
import Foundation
import LockProtocol

/// `lockctl usage`.
struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show screen time: how long each app, category, site or device group was in use.",
        discussion: """
            Today by default; --days N for today and the N-1 days before, or --from DATE and --to DATE (inclusive; \
            YYYY-MM-DD or RFC 3339). Each minute is counted once, for one thing; --explain lists the minutes and the \
            meter that counted each.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "app, category, site or group.")
    var by: String = "app"

    @Option(help: "Today and the days before it, this many days in all.")
    var days: Int?

    @Option(help: "First day (YYYY-MM-DD) or time (RFC 3339).")
    var from: String?

    @Option(help: "Last day (YYYY-MM-DD, inclusive) or time (RFC 3339).")
    var to: String?

    @Flag(help: "List each minute and the meter that counted it.")
    var explain = false

    func run() async throws {
        let zone = TimeZone.current
        guard ["app", "category", "site", "group"].contains(by) else {
            throw CommandFailure(code: ExitCodes.usage, "--by: \"\(by)\" is not one of app, category, site, group")
        }
        let window: InsightsWindow
        do {
            window =
                from == nil && to == nil
                ? try InsightsWindow.resolve(month: false, days: days ?? 1, from: nil, to: nil, now: Date(), zone: zone)
                : try InsightsWindow.resolve(month: false, days: days, from: from, to: to, now: Date(), zone: zone)
        } catch {
            throw CommandFailure(code: ExitCodes.usage, "\(error)")
        }
        let usage = try await global.call {
            try await $0.usage(from: window.from, to: window.to, by: by, zone: zone.identifier, explain: explain)
        }
        if try global.printJSON(usage) { return }
        print(Self.render(usage, title: window.title))
    }

    static func render(_ usage: UsageResponse, title: String) -> String {
        var lines = ["screen time \(title), by \(usage.by)"]
        if usage.items.isEmpty {
            lines.append("nothing metered")
        } else {
            var rows = [[usage.by.uppercased(), "TIME"]]
            for item in usage.items { rows.append([item.name, TextFormat.duration(seconds: item.seconds)]) }
            rows.append(["total", TextFormat.duration(seconds: usage.items.reduce(0) { $0 + $1.seconds })])
            lines.append(TextFormat.table(rows, header: true))
        }
        if let minutes = usage.minutes {
            lines.append("")
            guard !minutes.isEmpty else { return (lines + ["no minutes metered"]).joined(separator: "\n") }
            var rows = [["MINUTE", "ITEM", "SECONDS", "METER"]]
            for minute in minutes {
                rows.append([TextFormat.clock(minute.start), "\(minute.kind):\(minute.name)", String(minute.seconds), minute.meter])
            }
            lines.append(TextFormat.table(rows, header: true))
        }
        return lines.joined(separator: "\n")
    }
}
