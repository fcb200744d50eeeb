import Foundation

/// One interval of a schedule: `GET /v1/schedules/{name}/next` answers an array of them.
public struct ScheduleInterval: Sendable, Equatable, Codable {
    /// When the block starts (RFC 3339).
    public var start: Date
    /// When it ends (RFC 3339).
    public var end: Date

    /// Creates an interval.
    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// The wire form of a `DateInterval`.
    public init(_ interval: DateInterval) { self.init(start: interval.start, end: interval.end) }
}
