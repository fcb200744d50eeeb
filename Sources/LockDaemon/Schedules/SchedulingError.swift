import Foundation
import LockCore

/// Why a change to the schedules was refused or failed.
public enum SchedulingError: Error, Equatable, Sendable {
    /// No schedule has that name.
    case notFound(String)
    /// A schedule with that name exists.
    case exists(String)
    /// A value is invalid.
    case invalid(FieldError)
    /// The schedule names a profile that does not exist.
    case unknownProfile(String)
    /// The schedule's target cannot be enforced here (an unknown device group).
    case invalidTarget(TargetProblem)
    /// The schedule's block is strict and running: it cannot be disabled or removed now.
    case strictBlock(schedule: String, session: Session, verb: String)
    /// The file could not be written or removed.
    case io(String)
}

/// A schedule and where it stands now.
public struct ScheduleView: Sendable, Equatable {
    /// The schedule as defined.
    public var schedule: Schedule
    /// Where it stands.
    public var status: ScheduleStatus
    /// The session it has in force, if any.
    public var session: String?
    /// Why its last attempt to block failed, if it did.
    public var problem: String?
}
