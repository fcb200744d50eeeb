import LockProtocol

/// `{"sessions": [...]}`: what `start --json` and `stop --json` print.
struct SessionList: Encodable {
    var sessions: [SessionInfo]
    /// Only for stop: profiles that stay blocked by other sessions.
    var stillBlocked: [SessionInfo]?
}
