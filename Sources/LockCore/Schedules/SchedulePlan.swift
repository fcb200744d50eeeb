import Foundation

/// The planner's answer for one instant: a decision per schedule, and when to look again.
public struct SchedulePlan: Sendable, Equatable {
    /// The instant it was made for.
    public var now: Date
    /// One decision per schedule and per orphaned schedule session, by name.
    public var decisions: [ScheduleDecision]
    /// The next instant at which anything can change (an interval starts or ends, a warning is
    /// due); nil when no schedule will ever do anything again.
    public var wake: Date?

    /// Creates a plan.
    public init(now: Date, decisions: [ScheduleDecision], wake: Date?) {
        self.now = now
        self.decisions = decisions
        self.wake = wake
    }

    /// The decision for `name`.
    public func decision(_ name: String) -> ScheduleDecision? { decisions.first { $0.name == name } }

    /// Every warning due at the instant.
    public var warnings: [ScheduleWarning] { decisions.flatMap(\.warnings) }

    /// Lines for `lockctl status`: warnings (`mornings starts in 4m`) and blocks stopped by
    /// hand (`mornings stopped by hand until Mon 09:00`), as seen at `now`.
    public func notices(now: Date) -> [String] {
        var lines: [String] = []
        for decision in decisions {
            lines += decision.warnings.filter { $0.at > now }.map { $0.message(now: now) }
            if let status = decision.status, status.stoppedByHand {
                let until = status.next.map { " until " + ClockText.time($0.start, now: now, zone: status.zone) } ?? ""
                lines.append("\(decision.name) stopped by hand\(until)")
            }
        }
        return lines
    }
}
