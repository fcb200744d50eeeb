import Foundation
import LockCore
import LockProtocol
import NIOHTTP1

/// A request as the router sees it.
struct APIRequest: Sendable {
    var method: HTTPMethod
    var path: String
    var query: [String: String]
    var body: [UInt8]
    var peer: PeerCredentials
}

/// What the router answers: a JSON body, or an endless stream of events.
enum APIResponse: Sendable {
    case json(status: Int, body: [UInt8])
    case events(AsyncStream<Event>)
}

/// Maps HTTP requests to the daemon's operations. Knows nothing about sockets, so that the
/// whole API can be exercised without one.
struct APIRouter: Sendable {
    let manager: BlockManager
    let events: EventBus
    let authorizer: Authorizer
    let paths: Paths
    var configurationPath: String { paths.configFile }
    /// Endpoints of subsystems (schedules, Pomodoro), tried in order for paths the core does
    /// not know.
    var modules: [any RouteModule] = []
    /// Sources of one-line notices for the status (`mornings starts in 4 min`).
    var noticeSources: [@Sendable () async -> [String]] = []

    private static let encoder = API.makeEncoder()

    func handle(_ request: APIRequest) async -> APIResponse {
        do {
            return try await route(request)
        } catch let error as APIError {
            return APIRouter.error(error)
        } catch {
            return APIRouter.error(APIError(.internalError, "\(error)"))
        }
    }

    static func error(_ error: APIError) -> APIResponse {
        let body = (try? encoder.encode(APIErrorBody(error: error))).map(Array.init) ?? Array("{}".utf8)
        return .json(status: error.code.httpStatus, body: Array(body) + [10])
    }

    private func route(_ request: APIRequest) async throws -> APIResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        guard segments.first == "v1" else { throw APIError(.notFound, "no such endpoint \(request.path) (the API lives under /v1/)") }
        let method = request.method
        if method != .GET && method != .HEAD && !authorizer.mayChange(request.peer) {
            throw APIError(.forbidden, "permission denied: changes need root or membership of the '\(authorizer.groupName)' group (you are uid \(request.peer.uid))")
        }
        let path = Array(segments.dropFirst())
        guard let endpoint = Endpoint(path) else {
            for module in modules {
                if let response = try await module.handle(request, path: path) { return response }
            }
            throw APIError(.notFound, "no such endpoint \(request.path)")
        }
        switch (method, endpoint) {
        case (.GET, .status):
            var notices: [String] = []
            for source in noticeSources { notices += await source() }
            return try ok(await manager.status(notices: notices))
        case (.GET, .profiles):
            return try ok(await manager.listProfiles())
        case (.POST, .profiles):
            return try ok(await manager.createProfile(decode(CreateProfileRequest.self, request)), status: 201)
        case (.GET, .profile(let name)):
            return try ok(await manager.profile(name))
        case (.PATCH, .profile(let name)):
            return try ok(await manager.updateProfile(name, decode(UpdateProfileRequest.self, request)))
        case (.DELETE, .profile(let name)):
            try await manager.deleteProfile(name)
            return try ok(["deleted": name])
        case (.POST, .sessions):
            return try ok(await manager.start(decode(StartRequest.self, request)), status: 201)
        case (.DELETE, .session(let reference)):
            return try ok(await manager.stop(reference))
        case (.POST, .extend(let reference)):
            return try ok(await manager.extend(reference, by: decode(ExtendRequest.self, request).seconds))
        case (.GET, .check):
            guard let name = request.query["name"], !name.isEmpty else {
                throw APIError(.invalidArgument, "name: the query parameter ?name= is required")
            }
            return try ok(await manager.check(name))
        case (.GET, .history):
            let limit = request.query["limit"].flatMap(Int.init) ?? 50
            return try ok(await manager.history(limit: limit))
        case (.POST, .reload):
            return try ok(await manager.reload(configurationPath: configurationPath))
        case (.GET, .doctor):
            return try ok(await manager.doctor(paths: paths))
        case (.GET, .events):
            return .events(await events.subscribe())
        default:
            throw APIError(.methodNotAllowed, "\(method) is not allowed on \(request.path)")
        }
    }

    /// The API's endpoints, by path (after `/v1`).
    enum Endpoint: Equatable {
        case status, profiles, profile(String), sessions, session(String), extend(String), check, history, reload, events, doctor

        init?(_ path: [String]) {
            switch (path.count, path.first) {
            case (1, "status"): self = .status
            case (1, "profiles"): self = .profiles
            case (1, "sessions"): self = .sessions
            case (1, "check"): self = .check
            case (1, "history"): self = .history
            case (1, "reload"): self = .reload
            case (1, "events"): self = .events
            case (1, "doctor"): self = .doctor
            case (2, "profiles"): self = .profile(path[1])
            case (2, "sessions"): self = .session(path[1])
            case (3, "sessions") where path[2] == "extend": self = .extend(path[1])
            default: return nil
            }
        }
    }

    static func ok(_ value: some Encodable, status: Int = 200) throws -> APIResponse {
        .json(status: status, body: Array(try encoder.encode(value)) + [10])
    }

    private func ok(_ value: some Encodable, status: Int = 200) throws -> APIResponse {
        try APIRouter.ok(value, status: status)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: APIRequest) throws -> T {
        try APIRouter.decode(type, request)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ request: APIRequest) throws -> T {
        do {
            return try API.makeDecoder().decode(T.self, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError(.badRequest, "invalid request body: missing field \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw APIError(.badRequest, "invalid request body: wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError(.badRequest, "invalid request body: \(context.debugDescription)")
        } catch {
            throw APIError(.badRequest, "invalid request body: \(error)")
        }
    }
}
