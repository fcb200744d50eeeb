import Foundation
import Glibc
import LockPlatform

/// Prepares the path of the control socket: creates its directory and removes a stale socket
/// left by a daemon that died, but never a live one and never something that is not a socket.
enum ControlSocket {
    enum Failure: Error, CustomStringConvertible {
        case inUse(String)
        case notASocket(String)
        case system(SystemError)

        var description: String {
            switch self {
            case .inUse(let path): "another simplylockd is already listening on \(path)"
            case .notASocket(let path): "\(path) exists and is not a socket; refusing to replace it"
            case .system(let error): error.description
            }
        }
    }

    static func prepare(_ path: String) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        do { try AtomicFile.makeDirectories(directory) } catch { throw .system(error) }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        if isLive(path) { throw .inUse(path) }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(SystemError("unlink", path)) }
    }

    /// True when something accepts connections at `path`.
    static func isLive(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}
