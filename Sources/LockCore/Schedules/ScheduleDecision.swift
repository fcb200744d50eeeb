/// What the planner decided for one schedule (or for a session whose schedule is gone).
public struct ScheduleDecision: Sendable, Equatable {
    /// What to do with the session the schedule owns.
    public enum Action: Sendable, Equatable {
        /// Nothing: it is as it should be, or it is left to end by itself (a strict block is
        /// never shortened, a block about to expire is not ended a moment early).
        case leave
        /// Make the owned session match this block (start it, or move its end).
        case run(ScheduledBlock)
        /// End the owned session.
        case end
    }

    /// The schedule's name (the session origin is `schedule:NAME`).
    public var name: String
    /// What to do.
    public var action: Action
    /// What to remember about the schedule once the action is done (nil: nothing).
    public var record: ScheduleRecord?
    /// Where the schedule stands; nil for a session whose schedule no longer exists.
    public var status: ScheduleStatus?
    /// Warnings whose lead time contains the instant.
    public var warnings: [ScheduleWarning]

    /// Creates a decision.
    public init(name: String, action: Action, record: ScheduleRecord?, status: ScheduleStatus?, warnings: [ScheduleWarning] = []) {
        self.name = name
        self.action = action
        self.record = record
        self.status = status
        self.warnings = warnings
    }
}
