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

    /// Creates a record.
    public init(intervalStart: Date, stoppedByHand: Bool = false) {
        self.intervalStart = intervalStart
        self.stoppedByHand = stoppedByHand
    }

    /// Whether the record is about the interval starting at `start` (starts are whole seconds;
    /// the comparison tolerates the rounding of stored dates).
    public func isAbout(_ start: Date) -> Bool { abs(intervalStart.timeIntervalSince(start)) < 0.5 }
}
