import LockCore
import LockProtocol

/// The Pomodoro timer's endpoints.
struct PomodoroRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let pomodoro = core.pomodoro
        let reporter = core.reporter
        router.add(Endpoints.pomodoro) { _ in PomodoroInfo(await pomodoro.view()) }
        router.add(Endpoints.startPomodoro) { context throws(APIError) in
            let request = context.body
            // Far beyond any phase, but a duration: the range check then says "too long".
            func phase(_ value: Double?, _ field: String) throws(APIError) -> Duration? {
                guard let value else { return nil }
                guard value.isFinite else { throw APIError(.invalidArgument, "\(field): \(value) is not a number of seconds") }
                return Duration.checkedSeconds(min(max(value, -1e9), 1e9))
            }
            let target: BlockTarget
            do throws(FieldError) { target = try BlockTarget(parsing: request.target ?? []) } catch {
                throw APIError(.invalidArgument, error.description)
            }
            let start = PomodoroStart(
                profile: request.profile, focus: try phase(request.focusSeconds, "focus"),
                shortBreak: try phase(request.shortBreakSeconds, "short-break"),
                longBreak: try phase(request.longBreakSeconds, "long-break"), longEvery: request.longEvery,
                cycles: request.cycles, manual: request.manual, strict: request.strict,
                target: target)
            var info = PomodoroInfo(try await context.call { () async throws(PomodoroError) in try await pomodoro.start(start) })
            // A focus phase for the LAN that the DNS server has not taken is saved, not blocking.
            if info.problem == nil, info.blocking, !target.lanTargets.isEmpty, let reason = await reporter.lanNotInForce() {
                info.problem = "saved, not yet in force for \(target.lanTargets.joined(separator: ", ")): \(reason)"
            }
            return info
        }
        router.add(Endpoints.pomodoroHistory) { context throws(APIError) in
            let limit = context.query.integer("limit") ?? 50
            return PomodoroHistoryResponse(
                try await context.call { () async throws(PomodoroError) in try await pomodoro.history(limit: limit) })
        }
        router.add(Endpoints.pomodoroAction) { context throws(APIError) in
            let name = context.parameter("action")
            guard let operation = PomodoroOperation(rawValue: name) else {
                throw APIError(
                    .notFound,
                    "no such endpoint /v1/pomodoro/\(name) (actions: \(PomodoroOperation.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            return PomodoroInfo(try await context.call { () async throws(PomodoroError) in try await pomodoro.perform(operation) })
        }
    }
}
