import Foundation
import LockCore
import LockProtocol

/// Insights and goals.
struct InsightsRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let insights = core.insights
        router.add(Endpoints.insights) { context throws(APIError) in
            let from = context.query.timestamp("from")
            let to = context.query.timestamp("to")
            let zone = context.query.text("tz")
            let report = try await context.call { () async throws(InsightsError) in
                try await insights.report(from: from, to: to, zoneName: zone)
            }
            return InsightsResponse(report)
        }
        router.add(Endpoints.goals) { context throws(APIError) in
            GoalsInfo(try context.errors.run { () throws(InsightsError) in try insights.goals() })
        }
        router.add(Endpoints.updateGoals) { context throws(APIError) in
            let request = context.body
            return GoalsInfo(
                try context.errors.run { () throws(InsightsError) in
                    try insights.updateGoals(daily: request.dailySeconds, weekly: request.weeklySeconds)
                })
        }
    }
}
