import Foundation
import Glibc
import TestSupport

/// An AF_UNIX datagram socket bound to a path: plays systemd's notify socket or journald's
/// native socket.
final class DatagramListener: @unchecked Sendable {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestFailure("bind \(path): errno \(errno)") }
        chmod(path, 0o666)
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// One datagram, or nil after `timeout` seconds.
    func receive(timeout: Double) -> [UInt8]? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }

    /// Collects datagrams (as text) until `done` is satisfied by what has arrived, or fails
    /// after `timeout` seconds.
    func collect(timeout: Double = 20, until done: ([String]) -> Bool) throws -> [String] {
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !done(messages) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let data = receive(timeout: left) else {
                throw TestFailure("timed out; received so far: \(messages)")
            }
            messages.append(String(decoding: data, as: UTF8.self))
        }
        return messages
    }
}
