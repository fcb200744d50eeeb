import LockCore
import LockProtocol

/// Starting, stopping and extending blocks.
struct SessionRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let sessions = core.sessions
        let clock = core.clock
        let reporter = core.reporter
        router.add(Endpoints.startSession) { context throws(APIError) in
            let request = context.body
            let length: SessionLength
            switch (request.seconds, request.until) {
            case (let seconds?, nil):
                // The service's own limit, read here only to name it in the answer.
                let limit = await sessions.maxSessionLength
                length = .duration(try InputParsing.seconds(seconds, field: "duration", maximum: limit))
            case (nil, let until?): length = .until(until)
            default: throw APIError(.invalidArgument, "give exactly one of seconds and until")
            }
            let target: BlockTarget
            do throws(FieldError) { target = try BlockTarget(parsing: request.target ?? []) } catch {
                throw APIError(.invalidArgument, error.description)
            }
            let session = try await context.call { () async throws(SessionError) in
                try await sessions.start(request.profile, for: length, strict: request.strict, target: target)
            }
            let lanNotInForce = target.lanTargets.isEmpty ? nil : await reporter.lanNotInForce()
            let appsNotInForce = session.rules.apps.isEmpty ? nil : await reporter.appsNotInForce()
            return SessionInfo(session, at: clock(), lanNotInForce: lanNotInForce, appsNotInForce: appsNotInForce)
        }
        router.add(Endpoints.stopSession) { context throws(APIError) in
            let stopped = try await context.call { () async throws(SessionError) in try await sessions.stop(context.parameter("ref")) }
            let now = clock()
            return stopped.map { SessionInfo($0, at: now) }
        }
        router.add(Endpoints.extendSession) { context throws(APIError) in
            let limit = await sessions.maxSessionLength
            let extra = try InputParsing.seconds(context.body.seconds, field: "seconds", maximum: limit)
            let session = try await context.call { () async throws(SessionError) in
                try await sessions.extend(context.parameter("ref"), by: extra)
            }
            let lanNotInForce = session.target.lanTargets.isEmpty ? nil : await reporter.lanNotInForce()
            let appsNotInForce = session.rules.apps.isEmpty ? nil : await reporter.appsNotInForce()
            return SessionInfo(session, at: clock(), lanNotInForce: lanNotInForce, appsNotInForce: appsNotInForce)
        }
    }
}
