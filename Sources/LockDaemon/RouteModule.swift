/// A group of API endpoints belonging to one subsystem (schedules, Pomodoro), so that each
/// subsystem keeps its routes in its own file. Authorisation has already been checked.
protocol RouteModule: Sendable {
    /// Answers `request` if `path` (the segments after `/v1`) is one of this module's
    /// endpoints; returns nil otherwise. Throws `APIError` for refusals.
    func handle(_ request: APIRequest, path: [String]) async throws -> APIResponse?
}
