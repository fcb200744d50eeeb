import Glibc

/// The people who use the machine, read from the passwd file: accounts with a uid from 1000
/// (Debian's `UID_MIN`) below 65534 (`nobody`) and an existing home directory. Their per-user
/// application directories hold apps too.
public enum SystemUsers {
    /// Home directories of the real users listed in `passwd` (a path to a passwd-format file).
    public static func homes(passwd: String = "/etc/passwd") -> [String] {
        guard let bytes = try? readSmallFile(passwd, limit: 16 << 20) else { return [] }
        return homes(passwdText: String(decoding: bytes, as: UTF8.self)).filter { home in
            var status = stat()
            return stat(home, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        }
    }

    /// The home directories of real users in passwd-format text (no file system access).
    public static func homes(passwdText: String) -> [String] {
        var homes: [String] = []
        for line in passwdText.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 7, let uid = Int(fields[2]), uid >= 1000, uid < 65534 else { continue }
            let home = String(fields[5])
            if home.hasPrefix("/"), home != "/", !homes.contains(home) { homes.append(home) }
        }
        return homes
    }
}

/// Reads a whole file that is expected to be small, refusing more than `limit` bytes.
func readSmallFile(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
    guard fd >= 0 else { throw SystemError("open", path) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw SystemError("read", path)
        }
        if count == 0 { break }
        bytes += buffer[0..<count]
        if bytes.count > limit { throw SystemError("read", path, errno: EFBIG) }
    }
    return bytes
}
