import LockClient
import LockProtocol

/// A command's failure: what went wrong, at most one hint, and the exit status. Every error
/// lockctl prints is one of these, whether the argument parser, the command or the daemon found
/// it: `lockctl: <message>` and `hint: <hint>` on stderr, or with `--json` the object
/// `{"error": {"code", "message", "hint"}}` on stderr.
public struct CommandFailure: Error, CustomStringConvertible {
    /// Exit status.
    public var code: Int32
    /// What went wrong, one line, without the `lockctl:` prefix.
    public var message: String
    /// What to do about it, one line, or nil.
    public var hint: String?
    /// The machine-readable code of `--json` errors: the daemon's (`invalid_argument`,
    /// `refused`, …) or lockctl's own (`usage`, `unreachable`, …).
    public var errorCode: String

    /// Creates a failure.
    public init(code: Int32, _ message: String, hint: String? = nil, errorCode: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.errorCode = errorCode ?? ExitCodes.errorCode(for: code)
    }

    /// The failure a client error stands for. A refused value is named by the daemon with its
    /// request field (`seconds: …`); `fields` maps those to the command's own argument or
    /// option (`DURATION`, `--for`), so internal names never reach the user.
    public init(_ error: ClientError, fields: FieldNames = FieldNames(), unreachableHint: String? = nil) {
        code = ExitCodes.code(for: error)
        switch error {
        case .unreachable:
            message = error.description
            hint = unreachableHint
            errorCode = "unreachable"
        case .protocolError:
            message = error.description
            errorCode = "protocol_error"
        case .api(let apiError):
            // Only refused values are named by their field.
            message =
                [.invalidArgument, .notFound, .badRequest].contains(apiError.code) ? fields.rename(apiError.message) : apiError.message
            hint = apiError.hint
            errorCode = apiError.code.rawValue
        }
    }

    public var description: String { message + (hint.map { "\nhint: \($0)" } ?? "") }
}
