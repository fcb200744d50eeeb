import LockProtocol
// The connection limits, the request deadline and peer credentials are shared with the UI's
// server (LockServing); re-exported because they are part of the daemon's API edge as before.
@_exported import LockServing

extension ConnectionRefusal {
    /// What the caller is told: which limit it met.
    var message: String {
        switch self {
        case .perUser(let limit):
            "too many open connections to simplylockd from this user (\(limit) at most); close some and try again"
        case .pool(_, .reader):
            "simplylockd has as many connections from readers as it takes; try again later "
                + "(root and members of the '\(API.adminGroup)' group have connections of their own)"
        case .pool:
            "simplylockd has as many connections as it takes; try again later"
        }
    }
}
