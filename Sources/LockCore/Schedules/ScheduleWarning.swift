import Foundation

/// A schedule is about to start or end: sent once on the event stream when the warning lead
/// before the edge begins, and shown in the status until the edge.
public struct ScheduleWarning: Sendable, Equatable {
    /// Which edge is coming.
    public enum Edge: String, Sendable, Codable {
        /// The block starts.
        case start
        /// The block ends.
        case end
    }

    /// The schedule's name.
    public var schedule: String
    /// The profile it blocks.
    public var profile: String
    /// Which edge.
    public var edge: Edge
    /// When the edge happens.
    public var at: Date

    /// Creates a warning.
    public init(schedule: String, profile: String, edge: Edge, at: Date) {
        self.schedule = schedule
        self.profile = profile
        self.edge = edge
        self.at = at
    }

    /// Identifies the warning, so each is sent once however often the schedule is evaluated.
    public var key: String { "\(schedule)|\(edge.rawValue)|\(Int64(at.timeIntervalSince1970.rounded()))" }

    /// `mornings starts in 4m30s`, as seen at `now` (whole seconds, rounded up so the count
    /// never promises more time than there is).
    public func message(now: Date) -> String {
        let seconds = max(1, at.timeIntervalSince(now).rounded(.up))
        return "\(schedule) \(edge == .start ? "starts" : "ends") in \(DurationParser.format(.seconds(seconds)))"
    }
}
