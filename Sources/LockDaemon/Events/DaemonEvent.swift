import Foundation
import LockCore

/// Something that happened in the daemon, as domain values. The API edge turns these into the
/// wire events of `GET /v1/events`; nothing inside the daemon waits on them for work to do.
public enum DaemonEvent: Sendable {
    /// A session started.
    case sessionStarted(Session, at: ClockReading)
    /// A session ended.
    case sessionEnded(Session, reason: EndReason, at: ClockReading)
    /// A manual session was lengthened.
    case sessionExtended(Session, by: Duration, at: ClockReading)
    /// Profiles were created, changed, deleted or reloaded; `profile` names the one when one.
    case profilesChanged(profile: String?, change: ProfileChangeKind, at: Date)
    /// An enforcer could not apply what it was given.
    case enforcementFailed(enforcer: String, message: String, at: Date)
    /// A schedule starts or ends soon.
    case scheduleWarning(ScheduleWarning, now: Date)
    /// An allowance's time is nearly used up.
    case allowanceWarning(name: String, profile: String, left: Duration, at: Date)
    /// Something happened in the Pomodoro run.
    case pomodoro(PomodoroEvent, run: String, profile: String)
    /// A block stopped a site (repeats within 10 s are one); `timeLeft` is that of the session
    /// whose rules stopped it, when one is known.
    case siteBlocked(BlockedAttempt, timeLeft: Duration?)
    /// A block stopped an app from starting.
    case appBlocked(BlockedAttempt, timeLeft: Duration?)
    /// An allowance's open limit refused a launch of one of its apps (`--opens`, `--cooldown`).
    case launchRefused(BlockedAttempt, OpenRefusal)
    /// The daemon is shutting down; the last event of every stream.
    case stopping(at: Date)

    /// What happened to the profiles.
    public enum ProfileChangeKind: String, Sendable {
        case created, changed, deleted, reloaded
    }
}
