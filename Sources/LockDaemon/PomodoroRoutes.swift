import LockProtocol
import NIOHTTP1

/// The Pomodoro timer's endpoints: `GET`/`POST /v1/pomodoro`, `POST /v1/pomodoro/{action}`,
/// `GET /v1/pomodoro/history`.
struct PomodoroRoutes: RouteModule {
    let engine: PomodoroEngine

    func handle(_ request: APIRequest, path: [String]) async throws -> APIResponse? {
        guard path.first == "pomodoro", path.count <= 2 else { return nil }
        let method = request.method
        if path.count == 1 {
            switch method {
            case .GET: return try APIRouter.ok(await engine.info())
            case .POST: return try APIRouter.ok(await engine.start(APIRouter.decode(PomodoroStartRequest.self, request)), status: 201)
            default: throw notAllowed(request)
            }
        }
        if path[1] == "history" {
            guard method == .GET else { throw notAllowed(request) }
            let limit = request.query["limit"].flatMap(Int.init) ?? 50
            return try APIRouter.ok(await engine.history(limit: limit))
        }
        guard let action = PomodoroAction(rawValue: path[1]) else { return nil }
        guard method == .POST else { throw notAllowed(request) }
        return try APIRouter.ok(await engine.perform(action))
    }

    private func notAllowed(_ request: APIRequest) -> APIError {
        APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)")
    }
}
