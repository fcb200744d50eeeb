import LockCore

/// Why an early end (emergency access) was refused. Nothing changed when one is thrown.
public enum EmergencyError: Error, Equatable, Sendable {
    /// No active session matches the reference.
    case noSession(String)
    /// The session is not strict: it can simply be stopped.
    case notStrict(Session)
    /// The session belongs to the Pomodoro timer, which decides when its phases end.
    case ownedByPomodoro(Session)
    /// Several strict sessions match; one must be named by id.
    case ambiguous(reference: String, sessions: [Session])
    /// The profile's friction allows no early end (`emergency_per_week = 0`, or no `[friction]`).
    case notAllowed(Session)
    /// The weekly allowance is used up.
    case allowanceUsed(Session, EmergencyAllowance.Status)
    /// No challenge was asked for this session, or another one replaced it.
    case noChallenge(Session)
    /// Answered before the wait was over.
    case tooEarly(Session, remaining: Duration)
    /// The text did not match; `triesLeft` more answers are accepted.
    case wrongAnswer(Session, triesLeft: Int)
    /// The separators shown between groups were sent along: the text was pasted.
    case pasted(Session)
    /// The challenge expired (or the machine rebooted); ask for a new one.
    case expired(Session)
    /// The answer is missing its challenge or its text.
    case incompleteAnswer
    /// Ending the session failed.
    case session(SessionError)
    /// The allowance could not be read.
    case storage(StorageFailure)
}
