import Foundation
import LockProtocol

/// The `/v1/schedules…` endpoints.
struct ScheduleRoutes: RouteModule {
    let scheduler: Scheduler

    func handle(_ request: APIRequest, path: [String]) async throws -> APIResponse? {
        guard path.first == "schedules", path.count <= 3 else { return nil }
        switch (request.method, path.count) {
        case (.GET, 1):
            return try APIRouter.ok(await scheduler.list())
        case (.POST, 1):
            return try APIRouter.ok(await scheduler.create(APIRouter.decode(CreateScheduleRequest.self, request)), status: 201)
        case (.GET, 2):
            return try APIRouter.ok(await scheduler.schedule(path[1]))
        case (.PATCH, 2):
            return try APIRouter.ok(await scheduler.update(path[1], APIRouter.decode(UpdateScheduleRequest.self, request)))
        case (.DELETE, 2):
            try await scheduler.remove(path[1])
            return try APIRouter.ok(["deleted": path[1]])
        case (.GET, 3) where path[2] == "next":
            let count = try request.query["count"].map { text in
                guard let value = Int(text) else { throw APIError(.invalidArgument, "count: \"\(text)\" is not a whole number") }
                return value
            } ?? 10
            let after = try request.query["after"].map { text in
                guard let date = Self.parseTimestamp(text) else {
                    throw APIError(.invalidArgument, "after: \"\(text)\" is not an RFC 3339 time (e.g. 2027-03-27T12:00:00Z)")
                }
                return date
            }
            return try APIRouter.ok(await scheduler.next(path[1], count: count, after: after))
        case (_, 3) where path[2] != "next":
            return nil
        default:
            throw APIError(.methodNotAllowed, "\(request.method) is not allowed on \(request.path)")
        }
    }

    /// RFC 3339, with or without fractional seconds.
    static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
