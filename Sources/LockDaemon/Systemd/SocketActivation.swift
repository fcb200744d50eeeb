import CSystemd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Takes over the control socket from the service manager (`simplylockd.socket`).
///
/// With socket activation systemd owns `/run/simplylock/lockctl.sock`: clients can connect
/// while the daemon restarts, and the socket's mode and group come from the unit. Without it
/// (started by hand, in tests) the daemon binds the socket itself.
public enum SocketActivation {
    /// Returns the listening `AF_UNIX` stream sockets passed via `LISTEN_FDS`/`LISTEN_PID`, or
    /// `nil` when this process was not socket-activated.
    ///
    /// Calls `sd_listen_fds_with_names(1, …)`, which also unsets `LISTEN_FDS`, `LISTEN_PID` and
    /// `LISTEN_FDNAMES` so that children (such as `nft`) do not believe the sockets are theirs.
    /// A second call therefore returns `nil`: call it once, early in `main`, before other threads
    /// run (it modifies the environment, which is not thread-safe).
    /// - Throws: ``SocketActivationError`` if the variables are malformed or a descriptor is
    ///   not a listening unix stream socket.
    public static func listeningUnixSockets() throws(SocketActivationError) -> [InheritedSocket]? {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(1, &names)
        defer { freeNames(names, count: count) }
        if count < 0 {
            throw .listenFDsFailed(errno: -count)
        }
        if count == 0 {
            return nil
        }
        var sockets: [InheritedSocket] = []
        for index in 0..<Int(count) {
            let fd = SD_LISTEN_FDS_START + CInt(index)
            let name = names?[index].map { String(cString: $0) } ?? "unknown"
            // type SOCK_STREAM, listening = 1, no path check (path = nil, length = 0): the path
            // is the unit's business; what matters here is that accept(2) will work.
            guard sd_is_socket_unix(fd, CInt(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
                throw .notAListeningUnixStreamSocket(fileDescriptor: fd, name: name)
            }
            sockets.append(InheritedSocket(fileDescriptor: fd, name: name))
        }
        return sockets
    }

    /// Frees the NULL-terminated string vector returned by `sd_listen_fds_with_names`.
    private static func freeNames(_ names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, count: CInt) {
        guard let names else { return }
        var index = 0
        while let entry = names[index] {
            free(entry)
            index += 1
        }
        free(names)
    }
}
