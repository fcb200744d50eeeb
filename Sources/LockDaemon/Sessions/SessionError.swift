import Foundation
import LockCore

/// Why a change to the sessions was refused or failed. Nothing changed when one is thrown.
public enum SessionError: Error, Equatable, Sendable {
    /// No profile has that name.
    case unknownProfile(String)
    /// No active session matches the reference (an id or a profile name).
    case noSession(String)
    /// The profile is already blocked by a session of the same origin.
    case alreadyActive(Session)
    /// The session is strict: it cannot be stopped before it ends.
    case strict(Session)
    /// The only matching session belongs to the Pomodoro timer.
    case ownedByPomodoro(Session)
    /// Only manual sessions can be extended.
    case notManual(reference: String, origin: SessionOrigin)
    /// The requested length is not allowed.
    case invalidLength(LengthProblem)
    /// The target names a device group that is not configured, or one no LAN enforcer here
    /// can block for.
    case invalidTarget(TargetProblem)
    /// The change could not be saved.
    case storage(StorageFailure)
    /// The change could not be enforced, so it was undone.
    case enforcement(String)

    /// What is wrong with a requested length.
    public enum LengthProblem: Equatable, Sendable {
        /// Shorter than a second (or not a number).
        case tooShort
        /// Longer than the limit.
        case tooLong(limit: Duration)
        /// An end time that is not in the future.
        case notInFuture(Date)
        /// An extension that is not positive.
        case notAnExtension
    }
}
