import Foundation
import LockClient
import LockProtocol

/// Screen time in `lockctl insights --json`, under `usage` beside the insights' own keys: time
/// in use over the window and over the same length just before it, the top names per app,
/// category, site and device group, and the days by app.
struct UsageInsight: Encodable {
    var totalSeconds: Int
    var previousTotalSeconds: Int?
    var apps: [UsageResponse.Amount]
    var categories: [UsageResponse.Amount]
    var sites: [UsageResponse.Amount]
    var groups: [UsageResponse.Amount]
    var days: [UsageResponse.Day]

    /// Asks the daemon; nil when it keeps no usage (an older daemon).
    static func fetch(_ client: LockClient, from: Date, to: Date?, zone: String) async -> UsageInsight? {
        func ask(_ by: String, from: Date, to: Date?) async -> UsageResponse? {
            try? await client.usage(from: from, to: to, by: by, zone: zone)
        }
        guard let apps = await ask("app", from: from, to: to) else { return nil }
        let end = to ?? Date()
        let previous = await ask("app", from: from.addingTimeInterval(-end.timeIntervalSince(from)), to: from)
        let total = { (response: UsageResponse) in response.items.reduce(0) { $0 + $1.seconds } }
        return UsageInsight(
            totalSeconds: total(apps), previousTotalSeconds: previous.map(total), apps: apps.items,
            categories: await ask("category", from: from, to: to)?.items ?? [], sites: await ask("site", from: from, to: to)?.items ?? [],
            groups: await ask("group", from: from, to: to)?.items ?? [], days: apps.days)
    }
}

/// The insights with `usage` added to the same object.
struct InsightsWithUsage: Encodable {
    var insights: InsightsResponse
    var usage: UsageInsight?

    private enum Key: String, CodingKey { case usage }

    func encode(to encoder: any Encoder) throws {
        try insights.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(usage, forKey: .usage)
    }
}
