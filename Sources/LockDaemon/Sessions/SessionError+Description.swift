import LockCore

extension SessionError: CustomStringConvertible {
    /// A sentence for logs and status lines, without command hints.
    public var description: String {
        switch self {
        case .unknownProfile(let name): "no profile named \"\(name)\""
        case .noSession(let reference): "no active session for \"\(reference)\""
        case .alreadyActive(let session): "\(session.profile) is already blocked"
        case .strict(let session): "\(session.profile) is a strict block"
        case .ownedByPomodoro(let session): "\(session.profile) is blocked by the Pomodoro timer"
        case .notManual(let reference, let origin): "\(reference) was started by \(origin)"
        case .invalidLength(let problem): "invalid length: \(problem)"
        case .invalidTarget(let problem): "target: \(problem)"
        case .storage(let message): "cannot save: \(message)"
        case .enforcement(let message): "cannot enforce: \(message)"
        }
    }
}
