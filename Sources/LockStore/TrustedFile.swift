import Glibc
import LockCore

/// Reads configuration files the way a root daemon must: `profiles.d` and `schedules.d` are
/// written only by simplylockd, so a symbolic link there, a file someone else owns, or one
/// that others may write is refused without being read. Otherwise a link to a root-only file
/// would show its content in an error message to whoever can read the API.
public enum TrustedFile {
    /// Who may have written a file for it to be read.
    public enum Trust: Sendable {
        /// Any readable file (shipped data, the configuration file).
        case anyone
        /// Only a regular file owned by root (or by the daemon's own user when it does not run
        /// as root, as in demos), not a link, not writable by group or others.
        case daemonOnly
    }

    /// Files larger than this are refused rather than read into memory.
    public static let maxBytes = 4 << 20

    /// The file's bytes, or a problem that names the file and says why, never its content.
    public static func read(_ path: String, trust: Trust) throws(FileProblem) -> [UInt8] {
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if trust == .daemonOnly { flags |= O_NOFOLLOW }
        let fd = open(path, flags)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw FileProblem(file: path, message: "is a symbolic link; only regular files written by simplylockd are read here")
            }
            throw FileProblem(file: path, message: "cannot be read: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileProblem(file: path, message: "cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileProblem(file: path, message: "is not a regular file") }
        if trust == .daemonOnly {
            let me = geteuid()
            guard info.st_uid == 0 || info.st_uid == me else {
                throw FileProblem(file: path, message: "is owned by uid \(info.st_uid); only files owned by root are read here")
            }
            guard info.st_mode & 0o022 == 0 else {
                throw FileProblem(
                    file: path,
                    message:
                        "may be written by group or others (mode \(String(info.st_mode & 0o7777, radix: 8))); only simplylockd may write here"
                )
            }
        }
        guard info.st_size <= maxBytes else { throw FileProblem(file: path, message: "is larger than \(maxBytes >> 20) MiB") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileProblem(file: path, message: "cannot be read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
            guard bytes.count <= maxBytes else { throw FileProblem(file: path, message: "is larger than \(maxBytes >> 20) MiB") }
        }
        return bytes
    }
}
