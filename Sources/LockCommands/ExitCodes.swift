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
    /// Permission denied: changes need root or the `simplylock` group.
    public static let permissionDenied: Int32 = 4
    /// Refused by policy: a strict session, or a conflict with the current state.
    public static let refused: Int32 = 5
    /// Not found: no such profile, session or schedule.
    public static let notFound: Int32 = 6
    /// The daemon failed or answered something unexpected.
    public static let failure: Int32 = 7

    /// The table shown in help texts.
    public static let table = """
        Exit status:
          0  success
          1  negative answer (check: the name is not blocked; doctor: a problem was found)
          2  usage error or invalid value
          3  simplylockd not reachable
          4  permission denied (changes need root or the simplylock group)
          5  refused by policy (strict session, conflicting state)
          6  not found (profile, session, schedule)
          7  daemon failure or unexpected answer
        """

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

/// A command's failure: a message for stderr and the exit status.
public struct CommandFailure: Error, CustomStringConvertible {
    /// Exit status.
    public var code: Int32
    /// Message, without the `lockctl:` prefix.
    public var message: String

    /// Creates a failure.
    public init(code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The failure that a client error stands for, with a hint when the daemon is unreachable.
    public init(_ error: ClientError) {
        code = ExitCodes.code(for: error)
        switch error {
        case .unreachable:
            message = "\(error)\nhint: is simplylockd running? Start it with `systemctl start simplylockd`, or run `simplylockd --root DIR` and pass the same --root (or --socket PATH / SIMPLYLOCK_SOCKET) to lockctl."
        default:
            message = error.description
        }
    }

    public var description: String { message }
}
