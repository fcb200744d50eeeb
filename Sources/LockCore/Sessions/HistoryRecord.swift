import Foundation

/// One session in the history: when it started, what it was planned to last, and how it ended.
public struct HistoryRecord: Sendable, Equatable {
    /// The session's identifier.
    public var session: String
    /// The profile it blocked.
    public var profile: String
    /// What started it.
    public var origin: String
    /// Whether it was strict.
    public var strict: Bool
    /// When it started.
    public var startedAt: Date
    /// When it was planned to end, as of its start or last change.
    public var plannedEnd: Date
    /// When it ended; nil while it is active.
    public var endedAt: Date?
    /// How it ended; nil while it is active.
    public var endReason: EndReason?

    /// Creates a record.
    public init(
        session: String, profile: String, origin: String, strict: Bool, startedAt: Date, plannedEnd: Date,
        endedAt: Date?, endReason: EndReason?
    ) {
        self.session = session
        self.profile = profile
        self.origin = origin
        self.strict = strict
        self.startedAt = startedAt
        self.plannedEnd = plannedEnd
        self.endedAt = endedAt
        self.endReason = endReason
    }
}
