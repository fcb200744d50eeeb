import Glibc

/// glibc's name service cache daemon: its hosts cache is invalidated over its socket with the
/// request `nscd -i hosts` sends (`INVALIDATE`, key `hosts`); nscd accepts it from root only.
/// No socket, or nobody listening, is "not running".
struct NscdCache: ResolverCache {
    let name = "nscd"
    /// nscd's socket.
    var socketPath = "/var/run/nscd/socket"
    /// How long sending and answering may take.
    var timeout: Duration = .milliseconds(500)

    /// `request_header` of glibc's nscd-client.h: version 2, request type INVALIDATE (10).
    static let version: Int32 = 2
    static let invalidate: Int32 = 10

    /// The bytes of the request: the header (three native int32) and the key with its NUL.
    static func request(database: String = "hosts") -> [UInt8] {
        let key = Array(database.utf8) + [0]
        var bytes: [UInt8] = []
        for value in [version, invalidate, Int32(key.count)] { withUnsafeBytes(of: value) { bytes += $0 } }
        return bytes + key
    }

    func flush() -> ResolverCacheOutcome {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failed("\(socketPath): path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            if errno == ENOENT || errno == ECONNREFUSED { return .notRunning("no nscd listening at \(socketPath)") }
            return .failed("connect \(socketPath): \(String(cString: strerror(errno)))")
        }
        let request = Self.request()
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return .failed("send to \(socketPath): \(String(cString: strerror(errno)))") }
        var answer: Int32 = -1
        let received = withUnsafeMutableBytes(of: &answer) { recv(fd, $0.baseAddress, $0.count, Int32(MSG_WAITALL)) }
        guard received == MemoryLayout<Int32>.size else {
            return .failed("nscd did not answer the invalidation" + (received < 0 ? ": \(String(cString: strerror(errno)))" : ""))
        }
        return answer == 0 ? .flushed : .failed("nscd refused to invalidate its hosts cache (answer \(answer))")
    }
}
