import LockProtocol

/// `{"sessions": [...]}`: what `start --json` and `stop --json` print.
struct SessionList: Encodable {
    var sessions: [SessionInfo]
    /// Only for stop: profiles that stay blocked by other sessions.
    var stillBlocked: [SessionInfo]?
    /// Only for `stop --all`: the blocks it may not stop (strict, the Pomodoro's), left running.
    var left: [SessionInfo]?
}
