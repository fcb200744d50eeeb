import LockCore
import LockProtocol

/// Emergency access: ending a strict block early through a challenge.
struct EmergencyRoutes {
    let core: DaemonCore

    func register(in router: inout Router) {
        let emergency = core.emergency
        let clock = core.clock
        router.add(Endpoints.unlockSession) { context throws(APIError) in
            let reference = context.parameter("ref")
            let request = context.body
            if request.challenge == nil, request.answer == nil {
                let (session, challenge, allowance) = try await context.call { () async throws(EmergencyError) in
                    try await emergency.challenge(reference)
                }
                let now = clock()
                return UnlockResponse(
                    state: .challenge, session: SessionInfo(session, at: now), challenge: .init(challenge, at: now),
                    allowance: AllowanceInfo(allowance))
            }
            let (session, allowance) = try await context.call { () async throws(EmergencyError) in
                try await emergency.answer(reference, challenge: request.challenge, text: request.answer)
            }
            return UnlockResponse(
                state: .unlocked, session: SessionInfo(session, at: clock()), challenge: nil,
                allowance: AllowanceInfo(allowance))
        }
    }
}
