import Foundation

/// What the daemon keeps about one schedule between evaluations: the start of the interval whose
/// block it last put in force, and whether someone stopped that block by hand.
///
/// This is the only schedule state that is remembered rather than computed. It is what lets a
/// block stopped by hand stay stopped (across restarts too) until the schedule's next interval:
/// when the interval that contains now is the recorded one and its session is gone, a user
/// stopped it.
public struct ScheduleRecord: Sendable, Equatable, Codable {
    /// Start of the latest interval whose block was put in force.
    public var intervalStart: Date
    /// True once the block of that interval was found stopped by hand.
    public var stoppedByHand: Bool
    /// True when the schedule became strict during that interval (added, enabled or changed
    /// while its window was open) without being asked to start at once: the interval gets no
    /// strict block, so nobody is locked in without warning; the next interval is strict.
    public var strictDeferred: Bool

    /// Creates a record.
    public init(intervalStart: Date, stoppedByHand: Bool = false, strictDeferred: Bool = false) {
        self.intervalStart = intervalStart
        self.stoppedByHand = stoppedByHand
        self.strictDeferred = strictDeferred
    }

    private enum CodingKeys: String, CodingKey { case intervalStart, stoppedByHand, strictDeferred }

    // Records saved before `strictDeferred` existed lack the key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        intervalStart = try container.decode(Date.self, forKey: .intervalStart)
        stoppedByHand = try container.decode(Bool.self, forKey: .stoppedByHand)
        strictDeferred = try container.decodeIfPresent(Bool.self, forKey: .strictDeferred) ?? false
    }

    /// Whether the record is about the interval starting at `start` (starts are whole seconds;
    /// the comparison tolerates the rounding of stored dates).
    public func isAbout(_ start: Date) -> Bool { abs(intervalStart.timeIntervalSince(start)) < 0.5 }
}
