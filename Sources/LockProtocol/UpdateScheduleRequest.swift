/// `PATCH /v1/schedules/{name}`: change a schedule. Absent fields stay as they are.
public struct UpdateScheduleRequest: Sendable, Equatable, Codable {
    /// Enable or disable it (disabling ends its block, unless that block is strict).
    public var enabled: Bool?

    /// Creates a request.
    public init(enabled: Bool? = nil) { self.enabled = enabled }
}
