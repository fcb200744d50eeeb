import Foundation
import LockCore
import LockProtocol

/// Usage (screen time).
struct UsageRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let usage = UsageService(store: core.store, clock: core.clock, zone: core.zone)
        router.add(Endpoints.usage) { context throws(APIError) in
            let query = context.query
            let report = try context.errors.run { () throws(InsightsError) in
                try usage.report(
                    from: query.timestamp("from"), to: query.timestamp("to"), by: query.text("by"), zoneName: query.text("tz"),
                    explain: query.text("explain") == "true")
            }
            return UsageResponse(report)
        }
    }
}

extension UsageResponse {
    init(_ report: UsageService.Report) {
        func amounts(_ seconds: [String: Int]) -> [Amount] {
            seconds.map { Amount(name: $0.key, seconds: $0.value) }.sorted {
                $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.name < $1.name
            }
        }
        self.init(
            from: report.window.start, to: report.window.end, zone: report.zone.identifier, by: report.grouping.rawValue,
            items: report.totals.map { Amount(name: $0.name, seconds: $0.seconds) },
            days: report.days.map { Day(date: $0.day.date, start: $0.day.start, end: $0.day.end, items: amounts($0.seconds)) },
            minutes: report.minutes?.map {
                Minute(start: $0.start, kind: $0.item.kind.rawValue, name: $0.item.name, seconds: $0.seconds, meter: $0.meter.rawValue)
            })
    }
}
