/// `POST /v1/reload`: configuration, profiles and schedules read again.
public struct ReloadResponse: Sendable, Equatable, Codable {
    /// Profiles now known.
    public var profiles: Int
    /// Files that were refused (`file:line: field: reason`); their last good version stays in use.
    public var problems: [String]

    /// Creates a response.
    public init(profiles: Int, problems: [String]) {
        self.profiles = profiles
        self.problems = problems
    }
}
