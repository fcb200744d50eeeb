import Foundation
import LockCore
import LockProtocol

/// The `/v1/schedules…` endpoints.
struct ScheduleRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let scheduler = core.scheduler
        router.add(Endpoints.schedules) { _ in
            ScheduleList(
                schedules: await scheduler.list().map(ScheduleInfo.init), problems: await scheduler.fileProblems.map(\.description))
        }
        router.add(Endpoints.createSchedule) { context throws(APIError) in
            let request = context.body
            let schedule: Schedule
            do {
                let (duration, warning) = try Self.lengths(request.fields)
                let target = try BlockTarget(parsing: request.target ?? [])
                schedule = try Schedule(
                    name: request.name, profile: request.profile, days: request.days, from: request.from,
                    to: request.to, on: request.on, cron: request.cron, duration: duration, timeZoneName: request.tz,
                    strict: request.strict, warning: warning, target: target)
            } catch let error as APIError {
                throw error
            } catch {
                throw APIError(.invalidArgument, "\(error)")
            }
            let startNow = request.now ?? false
            return ScheduleInfo(
                try await context.call { () async throws(SchedulingError) in try await scheduler.create(schedule, startNow: startNow) })
        }
        router.add(Endpoints.schedule) { context throws(APIError) in
            let name = context.parameter("name")
            return ScheduleInfo(try await context.call { () async throws(SchedulingError) in try await scheduler.schedule(name) })
        }
        router.add(Endpoints.updateSchedule) { context throws(APIError) in
            let name = context.parameter("name")
            let request = context.body
            let (duration, warning) = try Self.lengths(request.fields)
            let edit = ScheduleEdit(
                profile: request.profile, days: request.days, from: request.from, to: request.to, on: request.on,
                cron: request.cron, duration: duration, timeZoneName: request.tz, strict: request.strict,
                warning: warning, enabled: request.enabled)
            let startNow = request.now ?? false
            return ScheduleInfo(
                try await context.call { () async throws(SchedulingError) in
                    try await scheduler.update(name, edit, startNow: startNow)
                })
        }
        router.add(Endpoints.deleteSchedule) { context throws(APIError) in
            let name = context.parameter("name")
            try await context.call { () async throws(SchedulingError) in try await scheduler.remove(name) }
            return Deleted(deleted: name)
        }
        router.add(Endpoints.scheduleNext) { context throws(APIError) in
            let name = context.parameter("name")
            let count = context.query.integer("count") ?? 10
            let after = context.query.timestamp("after")
            let intervals = try await context.call { () async throws(SchedulingError) in
                try await scheduler.next(name, count: count, after: after)
            }
            return intervals.map(ScheduleInterval.init)
        }
    }

    /// A request's block length and warning lead, only checked for being numbers here: the
    /// schedule says what its values may be.
    private static func lengths(_ fields: ScheduleFields) throws(APIError) -> (duration: Duration?, warning: Duration?) {
        let limit = Duration.seconds(366 * 86_400)
        let duration = try fields.seconds.map { value throws(APIError) in
            try InputParsing.seconds(value, field: "seconds", minimum: -limit.seconds, maximum: limit)
        }
        let warning = try fields.warnSeconds.map { value throws(APIError) in
            try InputParsing.seconds(value, field: "warnSeconds", minimum: -limit.seconds, maximum: limit)
        }
        return (duration, warning)
    }
}
