/// Why the descriptors passed by the service manager cannot be used.
public enum SocketActivationError: Error, Equatable, CustomStringConvertible {
    /// `sd_listen_fds_with_names(3)` failed, e.g. because `LISTEN_FDS` is malformed.
    case listenFDsFailed(errno: CInt)
    /// A passed descriptor is not a listening `AF_UNIX` `SOCK_STREAM` socket: the socket unit
    /// is misconfigured (e.g. `ListenDatagram=` or a TCP port). Binding our own socket instead
    /// would hide the mistake, so the daemon should stop with this error.
    case notAListeningUnixStreamSocket(fileDescriptor: CInt, name: String)

    /// A message naming the descriptor and what was expected.
    public var description: String {
        switch self {
        case .listenFDsFailed(let errno):
            return "sd_listen_fds failed: errno \(errno)"
        case .notAListeningUnixStreamSocket(let fd, let name):
            return "inherited fd \(fd) (\(name)) is not a listening AF_UNIX stream socket"
        }
    }
}
