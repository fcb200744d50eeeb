import LockProtocol

/// Why a request to the daemon failed.
public enum ClientError: Error, Sendable, CustomStringConvertible {
    /// Nothing answers at the socket (daemon not running, wrong path, no permission).
    case unreachable(socket: String, reason: String)
    /// The daemon answered with an error.
    case api(APIError)
    /// The answer could not be understood.
    case protocolError(String)

    public var description: String {
        switch self {
        case .unreachable(let socket, let reason): "cannot reach simplylockd at \(socket): \(reason)"
        case .api(let error): error.message
        case .protocolError(let message): "unexpected answer from simplylockd: \(message)"
        }
    }
}
