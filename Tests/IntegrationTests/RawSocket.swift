import Foundation
import Glibc
import TestSupport

/// A plain Unix-socket connection, for sending bytes no well-behaved client would send.
struct RawSocket {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = RawSocket.withAddress(path) { connect(fd, $0, $1) }
        guard result == 0 else { throw TestFailure("connect \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Reads until the peer closes (or the timeout).
    func readAll() -> String {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            result += buffer[0..<n]
        }
        return String(decoding: result, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }

    /// Creates a socket file with nothing listening behind it, as a crashed daemon leaves.
    static func makeStale(at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let result = withAddress(path) { bind(fd, $0, $1) }
        Glibc.close(fd)
        guard result == 0 else { throw TestFailure("bind \(path): errno \(errno)") }
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
