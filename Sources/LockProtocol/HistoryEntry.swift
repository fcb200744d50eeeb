import Foundation

/// One session in the history: `GET /v1/history`.
public struct HistoryEntry: Sendable, Equatable, Codable {
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
    /// When it was planned to end when it started (or was last extended).
    public var plannedEnd: Date
    /// When it ended; nil while active.
    public var endedAt: Date?
    /// `expired`, `stopped`, `daemon-restart` or `unlocked` (ended early through emergency access); nil while active.
    public var endReason: String?

    /// Creates an entry.
    public init(
        session: String, profile: String, origin: String, strict: Bool, startedAt: Date,
        plannedEnd: Date, endedAt: Date?, endReason: String?
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

/// `GET /v1/history`.
public struct HistoryResponse: Sendable, Equatable, Codable {
    /// Most recent first.
    public var entries: [HistoryEntry]
    /// Creates a response.
    public init(entries: [HistoryEntry]) { self.entries = entries }
}
