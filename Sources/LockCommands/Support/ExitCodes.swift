import LockClient
import LockProtocol

/// Every exit status `lockctl` uses, in one place (also in the README and `lockctl --help`).
public enum ExitCodes {
    /// Success.
    public static let success: Int32 = 0
    /// A negative answer rather than an error: `lockctl check` on a name that is not blocked,
    /// `lockctl doctor` finding a problem.
    public static let negative: Int32 = 1
    /// Usage error: bad arguments, or a value the daemon refused as invalid.
    public static let usage: Int32 = 2
    /// The daemon is not reachable (not running, or wrong socket).
    public static let unreachable: Int32 = 3
    /// `lockctl status --quiet`: no block is active (or, as the same status says, nothing
    /// answers), as `systemctl is-active` exits 3 for a unit that is not active.
    public static let inactive: Int32 = 3
    /// Permission denied: changes need root or the `simplylock` group.
    public static let permissionDenied: Int32 = 4
    /// Refused by policy: a strict session, or a conflict with the current state.
    public static let refused: Int32 = 5
    /// Not found: no such profile, session or schedule.
    public static let notFound: Int32 = 6
    /// The daemon failed or answered something unexpected.
    public static let failure: Int32 = 7
    /// Saved but not (yet) in force: a block aimed at the LAN while the LAN's DNS server does
    /// not take it (Unbound down); the daemon puts it in force as soon as the server answers.
    public static let notInForce: Int32 = 8

    /// Every status with its meaning, for `lockctl --help` and the manual page.
    public static let meanings: [(Int32, String)] = [
        (success, "success (stop --all: also when strict blocks are left)"),
        (negative, "negative answer (check: not blocked; doctor, reload: a problem found)"),
        (usage, "usage error or invalid value"),
        (unreachable, "simplylockd not reachable; status --quiet: no block active"),
        (permissionDenied, "permission denied (changes need root or the simplylock group)"),
        (refused, "refused by policy (strict block, conflicting state)"),
        (notFound, "not found (profile, session, schedule)"),
        (failure, "daemon failure or unexpected answer"),
        (notInForce, "saved, not yet in force (a LAN block while its DNS server is down)"),
    ]

    /// The code that `--json` errors carry for a status that no daemon error explains.
    static func errorCode(for status: Int32) -> String {
        switch status {
        case usage: "usage"
        case unreachable: "unreachable"
        case permissionDenied: "forbidden"
        case refused: "refused"
        case notFound: "not_found"
        default: "failure"
        }
    }

    /// The exit status for a client error.
    public static func code(for error: ClientError) -> Int32 {
        switch error {
        case .unreachable: unreachable
        case .protocolError: failure
        case .api(let apiError):
            switch apiError.code {
            case .badRequest, .invalidArgument, .tooLarge, .methodNotAllowed: usage
            case .forbidden: permissionDenied
            case .refused, .conflict: refused
            case .notFound: notFound
            case .internalError, .unavailable: failure
            }
        }
    }
}
