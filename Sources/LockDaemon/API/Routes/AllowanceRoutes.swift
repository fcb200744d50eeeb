import Foundation
import LockCore
import LockProtocol
import LockStore

/// Time allowances.
struct AllowanceRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let owner = core.allowances
        router.add(Endpoints.allowances) { _ throws(APIError) in
            TimeAllowanceList(allowances: await owner.list().map(TimeAllowanceInfo.init))
        }
        router.add(Endpoints.createAllowance) { context throws(APIError) in
            let allowance = try Self.allowance(from: context.body)
            try await context.call { () async throws(AllowanceError) in try await owner.add(allowance) }
            guard let status = await owner.list().first(where: { $0.allowance.name == allowance.name }) else {
                throw APIError(.internalError, "the allowance was saved but is not listed")
            }
            return TimeAllowanceInfo(status)
        }
        router.add(Endpoints.deleteAllowance) { context throws(APIError) in
            let name = context.parameter("name")
            try await context.call { () async throws(AllowanceError) in try await owner.remove(name) }
            return Deleted(deleted: name)
        }
    }

    /// The domain allowance a request describes; every number is checked before it is converted.
    static func allowance(from request: CreateAllowanceRequest) throws(APIError) -> Allowance {
        func duration(_ seconds: Double?, _ field: String) throws(APIError) -> Duration? {
            guard let seconds else { return nil }
            guard seconds.isFinite, seconds >= 1, seconds <= 7 * 86_400, let value = Duration.checkedSeconds(seconds.rounded()) else {
                throw APIError(.invalidArgument, "\(field): must be between 1 second and 7 days")
            }
            return value
        }
        var days = WeekdaySet.all
        if let text = request.days {
            do { days = try WeekdaySet(parsing: text) } catch { throw APIError(.invalidArgument, "days: \(error.reason)") }
        }
        let target: BlockTarget
        do { target = try BlockTarget(parsing: request.target ?? []) } catch { throw APIError(.invalidArgument, error.description) }
        return Allowance(
            name: request.name, profile: request.profile, daily: try duration(request.dailySeconds, "dailySeconds"),
            weekly: try duration(request.weeklySeconds, "weeklySeconds"), days: days,
            warn: try duration(request.warnSeconds, "warnSeconds"),
            strict: request.strict ?? false, target: target, opens: request.opens,
            cooldown: try duration(request.cooldownSeconds, "cooldownSeconds"))
    }
}

extension AllowanceError: APIMappable {
    func apiError(_ mapping: ErrorMapping) -> APIError {
        switch self {
        case .invalid(let error): APIError(.invalidArgument, error.description)
        case .unknownProfile(let name): APIError(.notFound, "no profile named \"\(name)\" (see `lockctl profiles list`)")
        case .strictLimitActive(let name):
            APIError(.refused, "\(name) is strict and refuses launches now; it can be removed once its launches come back")
        case .strictBlockActive(let name):
            APIError(.refused, "\(name) is strict and its block is in force; it can be removed once its time resets")
        case .store(.notFound(let name)): APIError(.notFound, "no allowance named \"\(name)\" (see `lockctl allowances list`)")
        case .store(.exists(let name)): APIError(.conflict, "an allowance named \"\(name)\" exists")
        case .store(.io(let message)): APIError(.internalError, "cannot write the allowance file: \(message)")
        }
    }
}

extension TimeAllowanceInfo {
    init(_ status: AllowanceOwner.Status) {
        let allowance = status.allowance
        self.init(
            name: allowance.name, profile: allowance.profile, dailySeconds: allowance.daily?.seconds,
            weeklySeconds: allowance.weekly?.seconds, days: allowance.days.description, warnSeconds: allowance.warn?.seconds,
            strict: allowance.strict, target: allowance.target.names, opens: allowance.opens, cooldownSeconds: allowance.cooldown?.seconds,
            usedTodaySeconds: status.usedToday.seconds, usedThisWeekSeconds: status.usedThisWeek.seconds, leftSeconds: status.left?.seconds,
            resetsAt: status.resetsAt, opensToday: status.opensToday, opensLeft: status.opensLeft,
            cooldownLeftSeconds: status.cooldownLeft.map { $0.seconds.rounded(.up) }, blocking: status.blocking, inUse: status.inUse)
    }
}
